import type { RequestHandler } from "express";
import type { JwtPayload } from "jsonwebtoken";
import { InsufficientScopeError } from "../http/http-errors.js";

/**
 * The scopes a token grants: `scope` is a space-separated string (RFC 8693, OAuth 2.0); `scp` is the
 * same as a string or an array of strings (Azure AD, Okta).
 */
export function grantedScopes(claims: JwtPayload): Set<string> {
  const granted = new Set<string>();
  for (const value of [claims.scope, claims.scp]) {
    const scopes = typeof value === "string" ? value.split(" ") : Array.isArray(value) ? value : [];
    for (const scope of scopes) if (typeof scope === "string" && scope !== "") granted.add(scope);
  }
  return granted;
}

/** After bearerAuth: a valid token without every required scope gets 403 insufficient_scope. */
export function requireScopes(required: readonly string[]): RequestHandler {
  return (_req, res, next) => {
    const granted = grantedScopes(res.locals.claims as JwtPayload);
    next(required.every((scope) => granted.has(scope)) ? undefined : new InsufficientScopeError(required));
  };
}
