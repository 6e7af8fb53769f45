import type { JwtPayload } from "jsonwebtoken";

/**
 * Turns a bearer token into its claims, or throws (rejects) to refuse it: synchronously for fixed keys, a promise
 * when keys are fetched (JWKS). The key-source verifiers, the verified-token cache and tracing's span all take and
 * give this one shape.
 */
export interface TokenVerifier<Claims = JwtPayload> {
  verify(token: string): Claims | Promise<Claims>;
}
