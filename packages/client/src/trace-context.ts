type OpenTelemetryApi = typeof import("@opentelemetry/api");

// An optional peer dependency: a variable keeps bundlers from resolving (and requiring) it at build time.
const OPENTELEMETRY_API = "@opentelemetry/api";
let loading: Promise<OpenTelemetryApi | undefined> | undefined;

/**
 * The W3C trace-context headers (traceparent, tracestate) of the caller's active span, so the server's
 * trace continues the caller's, when the app has `@opentelemetry/api` with a tracer provider and
 * propagator registered; none otherwise (the import fails quietly where the package is absent).
 */
export async function traceContextHeaders(): Promise<Record<string, string>> {
  loading ??= import(/* webpackIgnore: true */ /* @vite-ignore */ OPENTELEMETRY_API).then(
    (api: OpenTelemetryApi) => api,
    () => undefined,
  );
  const api = await loading;
  const headers: Record<string, string> = {};
  api?.propagation.inject(api.context.active(), headers);
  return headers;
}
