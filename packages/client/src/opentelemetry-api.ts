/** The `@opentelemetry/api` module, an optional peer dependency. */
export type OpenTelemetryApi = typeof import("@opentelemetry/api");

// A variable keeps bundlers from resolving (and requiring) it at build time.
const OPENTELEMETRY_API = "@opentelemetry/api";

/** Imports `@opentelemetry/api`; resolves undefined where the app does not have it. */
export function importOpenTelemetryApi(): Promise<OpenTelemetryApi | undefined> {
  return import(/* webpackIgnore: true */ /* @vite-ignore */ OPENTELEMETRY_API).then(
    (api: OpenTelemetryApi) => api,
    () => undefined,
  );
}
