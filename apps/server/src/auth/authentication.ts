import type { RequestHandler } from "express";
import type { Logger } from "../logger.js";
import { bearerAuth } from "./bearer-auth.js";
import type { TokenVerifier } from "./token-verifier.js";
import { requireScopes } from "./required-scope.js";
import { subjectRateLimit } from "./subject-rate-limit.js";

export interface AuthenticationOptions {
  /** Verifies a bearer token: in the server, the verified-token cache over the configured key source. */
  verifier: TokenVerifier;
  /** Scopes every token must grant (JWT_REQUIRED_SCOPE); none when empty or unset. */
  requiredScopes?: readonly string[] | undefined;
  /** Requests per token subject per minute (RATE_LIMIT_PER_MINUTE); 0 or unset turns the limit off. */
  rateLimitPerMinute?: number | undefined;
  logger?: Logger;
}

/** The checks a request passes before its body is read: a valid token (401), its scope (403), its rate (429). */
export function authentication(options: AuthenticationOptions): RequestHandler[] {
  return [
    bearerAuth(options.verifier),
    ...(options.requiredScopes?.length ? [requireScopes(options.requiredScopes)] : []),
    ...(options.rateLimitPerMinute ? [subjectRateLimit(options.rateLimitPerMinute, options.logger)] : []),
  ];
}
