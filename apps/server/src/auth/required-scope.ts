import type { RequestHandler } from "express";
import type { JwtPayload } from "jsonwebtoken";
import { InsufficientScopeError } from "./auth-errors.js";

/**
 * The scopes a token grants: `scope` is a space-separated string (RFC 8693, OAuth 2.0); `scp` is the
 * same as a string or an array of strings (Azure AD, Okta).
 */
export function grantedScopes(claims: JwtPayload): Set<string> {
  const granted = new Set<string>();
  const fromScope = typeof claims.scope === "string" ? claims.scope.split(" ") : [];
  const fromScp = typeof claims.scp === "string" ? claims.scp.split(" ") : Array.isArray(claims.scp) ? claims.scp : [];
  for (const scope of [...fromScope, ...fromScp]) if (typeof scope === "string" && scope !== "") granted.add(scope);
  return granted;
}

/** After bearerAuth: a valid token without every required scope is an InsufficientScopeError (403). */
export function requireScopes(required: readonly string[]): RequestHandler {
  return (_req, res, next) => {
    const granted = grantedScopes(res.locals.claims as JwtPayload);
    next(required.every((scope) => granted.has(scope)) ? undefined : new InsufficientScopeError(required));
  };
}
