import type { Registry } from "prom-client";
import type { TracesExport } from "./traces-export.js";
import { noTracing, type Tracing } from "./tracing.js";

/**
 * Starts the OpenTelemetry SDK when traces are to be exported; otherwise none of it is ever imported, and the
 * server runs with noTracing. Must run before the PostgreSQL store is opened: the pg instrumentation patches pg
 * as it loads. The server's own files import nothing from tracing/; what it sees inside them comes through the
 * diagnostics channels they publish.
 */
export async function loadTracing(traces: TracesExport | undefined, registry: Registry): Promise<Tracing> {
  if (traces === undefined) return noTracing;
  const { startTracing } = await import("./start-tracing.js");
  return startTracing(traces, registry);
}
