import type { OpenTelemetryApi } from "./opentelemetry-api.js";

// The `worker` condition's build (dist/worker.js) has this module in place of opentelemetry-api.ts
// (tsup.config.ts): a Worker's bundle cannot import a package it did not bundle, and miniflare's
// module walker refuses an import() of a variable, so this build never tries.

/** Resolves undefined: under the `worker` condition the client adds no trace headers of its own. */
export function importOpenTelemetryApi(): Promise<OpenTelemetryApi | undefined> {
  return Promise.resolve(undefined);
}
