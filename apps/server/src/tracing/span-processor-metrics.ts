import { type Counter, createNoopMeter, type Meter, type MeterProvider } from "@opentelemetry/api";
import { Counter as PrometheusCounter, type Registry } from "prom-client";

// The batch span processor's self-observability counter (OpenTelemetry semantic conventions).
const SPANS_PROCESSED = "otel.sdk.processor.span.processed";

/**
 * A MeterProvider for the batch span processor's own metrics that turns its count of processed spans into
 * the Prometheus counter otel_sdk_processor_span_processed_total on the server's /metrics: spans it could not
 * export carry error_type ("queue_full" when dropped because its queue was full, else the export error's
 * name). Its other instruments are not needed and stay no-ops.
 */
export function spanProcessorMetrics(registry: Registry): MeterProvider {
  const processed = new PrometheusCounter({
    name: "otel_sdk_processor_span_processed_total",
    help: "Spans the batch span processor finished with: exported, or with error_type why not (queue_full: dropped).",
    labelNames: ["error_type"],
    registers: [registry],
  });
  const counter: Counter = {
    add: (value, attributes) => {
      const errorType = attributes?.["error.type"];
      processed.inc(typeof errorType === "string" ? { error_type: errorType } : {}, value);
    },
  };
  const noop = createNoopMeter();
  const meter: Meter = Object.assign(Object.create(noop) as Meter, {
    createCounter: (name: string) => (name === SPANS_PROCESSED ? counter : noop.createCounter(name)),
  });
  return { getMeter: () => meter };
}
