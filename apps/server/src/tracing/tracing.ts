import type { RequestHandler } from "express";
import type { JwtPayload } from "jsonwebtoken";
import type { TokenVerifier } from "../auth/token-verifier.js";
import type { VerifiedTokenCache } from "../auth/verified-token-cache.js";
import type { Logger } from "../logger.js";
import type { PlantStore } from "../store/plant-store.js";

/** Which database a store writes to, as OpenTelemetry names it (db.system). */
export type DatabaseSystem = "sqlite" | "postgresql";

/** The parts of the server tracing observes, as the composition root has them before it builds the app. */
export interface Traceable {
  store: PlantStore;
  system: DatabaseSystem;
  /** The verified-token cache (a span says whether it answered a token). */
  verifier: VerifiedTokenCache<JwtPayload>;
}

/** Those parts as the app is built from them: traced when tracing is on, plus the middleware that runs first. */
export interface Instrumented {
  store: PlantStore;
  verifier: TokenVerifier;
  /** The request's SERVER span, before the edge; empty when not tracing. */
  first: RequestHandler[];
}

/**
 * A running OpenTelemetry SDK (see docs/tracing.md), or `noTracing` when no traces are exported. It is applied once,
 * at start, by the composition root, so with tracing off the request path has nothing of it, not even a check.
 */
export interface Tracing {
  /** Wraps the parts it traces and subscribes to the body's diagnostics channels (request-body/body-diagnostics.ts). */
  instrument(parts: Traceable): Instrumented;
  /** pino's mixin: trace_id, span_id and trace_flags of the span active as a line is logged; none when not tracing. */
  logFields: (() => Record<string, string>) | undefined;
  /** Sends the SDK's own warnings (failed exports, dropped spans) to the server's log. */
  logTo(logger: Logger): void;
  /** Exports the spans still queued and stops the SDK, giving up after timeoutMs; never rejects. */
  shutdown(timeoutMs: number): Promise<void>;
}

/** No traces exported: the parts as they are, no mixin, nothing to flush. None of the OpenTelemetry SDK is loaded. */
export const noTracing: Tracing = {
  instrument: ({ store, verifier }) => ({ store, verifier, first: [] }),
  logFields: undefined,
  logTo: () => undefined,
  shutdown: async () => undefined,
};
