/** The samplers the OpenTelemetry specification defines, by the names OTEL_TRACES_SAMPLER takes. */
export const TRACES_SAMPLERS = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
] as const;

export type TracesSampler = (typeof TRACES_SAMPLERS)[number];

/** How the server exports traces: OTLP over HTTP with this encoding, which spans, and how they are batched. */
export interface TracesExport {
  protocol: "http/protobuf" | "http/json";
  /** The sampler, with the ratio of the traceidratio samplers. */
  sampler: { name: TracesSampler; ratio?: number };
  /** The batch span processor's options. */
  batch: {
    maxQueueSize: number;
    maxExportBatchSize: number;
    scheduledDelayMillis: number;
    exportTimeoutMillis: number;
  };
}
