import type { RequestHandler } from "express";
import helmet from "helmet";

/**
 * helmet's headers on every response, with its default Content-Security-Policy (scripts from this origin only;
 * styles from this origin, https: and inline, as helmet's default `style-src 'self' https: 'unsafe-inline'`
 * allows, which the /docs page needs), minus upgrade-insecure-requests: the server itself speaks plain HTTP and
 * is often reached that way inside a network, where upgrading would break /docs.
 */
export function securityHeaders(): RequestHandler {
  return helmet({ contentSecurityPolicy: { useDefaults: true, directives: { "upgrade-insecure-requests": null } } });
}
