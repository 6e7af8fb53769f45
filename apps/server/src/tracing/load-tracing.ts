import type { Registry } from "prom-client";
import type { TracesExport } from "../config.js";
import type { Tracing } from "./tracing.js";

/**
 * Starts the OpenTelemetry SDK when traces are to be exported; otherwise none of it is ever imported.
 * Must run before the PostgreSQL store is opened: the pg instrumentation patches pg as it loads.
 */
export async function loadTracing(traces: TracesExport | undefined, registry: Registry): Promise<Tracing | undefined> {
  if (traces === undefined) return undefined;
  const { startTracing } = await import("./start-tracing.js");
  return startTracing(traces, registry);
}
