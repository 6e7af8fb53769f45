import type { RequestHandler } from "express";
import type { JwtPayload } from "jsonwebtoken";
import type { TokenVerifier } from "../auth/jwt-verifier.js";
import type { VerifiedTokenCache } from "../auth/verified-token-cache.js";
import type { Logger } from "../logger.js";
import type { PlantStore } from "../store/plant-store.js";

/** Which database a store writes to, as OpenTelemetry names it (db.system). */
export type DatabaseSystem = "sqlite" | "postgresql";

/**
 * What a running OpenTelemetry SDK adds to the server (see docs/tracing.md). The server holds one only
 * when traces are exported; every hook below is then wired in once at start, so with tracing off the
 * request path has nothing of it, not even a check.
 */
export interface Tracing {
  /** The first middleware: the request's SERVER span, continuing an incoming W3C traceparent. */
  requestSpan: RequestHandler;
  /** The bearer-token check in a span that says whether the verified-token cache answered it. */
  traceTokenVerification(cache: VerifiedTokenCache<JwtPayload>): TokenVerifier;
  /** The body reader in a span that lasts until the contract's validation of the body is done. */
  traceBodyValidation(readBody: RequestHandler): RequestHandler;
  /** The route handlers, each ending the body-validation span first: they run only once it passed. */
  endBodyValidationOnEntry<Router extends object>(router: Router): Router;
  /** The store with a span per create: db.system and the size of the group-commit batch it went in. */
  traceStore(store: PlantStore, system: DatabaseSystem): PlantStore;
  /** pino's mixin: trace_id, span_id and trace_flags of the span active when a line is logged. */
  logFields(): Record<string, string>;
  /** Sends the SDK's own warnings (failed exports, dropped spans) to the server's log. */
  logTo(logger: Logger): void;
  /** Exports the spans still queued and stops the SDK, giving up after timeoutMs; never rejects. */
  shutdown(timeoutMs: number): Promise<void>;
}
