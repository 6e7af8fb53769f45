import { importOpenTelemetryApi, type OpenTelemetryApi } from "./opentelemetry-api.js";

let loading: Promise<OpenTelemetryApi | undefined> | undefined;

/**
 * The W3C trace-context headers (traceparent, tracestate) of the caller's active span, so the server's
 * trace continues the caller's, when the app has `@opentelemetry/api` with a tracer provider and
 * propagator registered; none otherwise (the import fails quietly where the package is absent).
 */
export async function traceContextHeaders(): Promise<Record<string, string>> {
  loading ??= importOpenTelemetryApi();
  const api = await loading;
  const headers: Record<string, string> = {};
  api?.propagation.inject(api.context.active(), headers);
  return headers;
}
