import cors from "cors";
import type { RequestHandler } from "express";
import helmet from "helmet";

/**
 * helmet's headers with its default Content-Security-Policy (scripts and styles from this origin only,
 * which the /docs page needs and keeps to), minus upgrade-insecure-requests: the server itself speaks
 * plain HTTP and is often reached that way inside a network, where upgrading would break /docs.
 */
export function securityHeaders(): RequestHandler {
  return helmet({
    contentSecurityPolicy: { useDefaults: true, directives: { "upgrade-insecure-requests": null } },
  });
}

/**
 * CORS for browser clients on the listed origins only (CORS_ORIGINS); any other origin gets no
 * Access-Control-Allow-Origin, so browsers refuse to show it the response. An empty list allows none.
 */
export function corsAllowlist(origins: readonly string[]): RequestHandler {
  return cors({
    origin: [...origins],
    methods: ["GET", "POST"],
    allowedHeaders: ["Authorization", "Content-Type", "X-Request-Id"],
    exposedHeaders: ["X-Request-Id"],
    maxAge: 600,
  });
}
