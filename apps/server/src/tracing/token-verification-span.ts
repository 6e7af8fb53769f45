import { SpanStatusCode, type Span, type Tracer } from "@opentelemetry/api";
import { ATTR_ERROR_TYPE } from "@opentelemetry/semantic-conventions";
import type { TokenVerifier } from "../auth/token-verifier.js";
import type { VerifiedTokenCache } from "../auth/verified-token-cache.js";
import { errorTypeOf } from "./error-type.js";

/** Whether the verified-token cache answered (true) or the signature was checked (false). */
export const ATTR_TOKEN_CACHE_HIT = "plant_store.token_cache.hit";

/** The cache's verify() in a "verify token" span; a refused token ends it with error.type. */
export function traceTokenVerification<Claims extends { exp?: unknown }>(
  tracer: Tracer,
  cache: VerifiedTokenCache<Claims>,
): TokenVerifier<Claims> {
  const refused = (span: Span, error: unknown) => {
    span.setAttribute(ATTR_ERROR_TYPE, errorTypeOf(error));
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
  return {
    verify: (token) =>
      tracer.startActiveSpan("verify token", (span) => {
        const hitsBefore = cache.hits;
        let claims: Claims | Promise<Claims>;
        try {
          claims = cache.verify(token);
        } catch (error) {
          span.setAttribute(ATTR_TOKEN_CACHE_HIT, false);
          refused(span, error);
          throw error;
        }
        span.setAttribute(ATTR_TOKEN_CACHE_HIT, cache.hits > hitsBefore);
        if (!(claims instanceof Promise)) {
          span.end();
          return claims;
        }
        return claims.then(
          (verified) => {
            span.end();
            return verified;
          },
          (error: unknown) => {
            refused(span, error);
            throw error;
          },
        );
      }),
  };
}
