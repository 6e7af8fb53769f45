import type { Instrumented, Traceable, Tracing } from "./tracing.js";

/**
 * The one place the composition root applies tracing: the store, the token check and the request in spans when
 * traces are exported (see load-tracing.ts), the parts as they are otherwise. The server's own files import
 * nothing from tracing/; what tracing sees inside them comes through diagnostics channels they publish.
 */
export function instrument(tracing: Tracing | undefined, parts: Traceable): Instrumented {
  return tracing?.instrument(parts) ?? { store: parts.store, verifier: parts.verifier, first: [] };
}
