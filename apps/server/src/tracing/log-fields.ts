import { context, trace } from "@opentelemetry/api";

const NONE: Record<string, string> = {};

/**
 * The ids of the span active when a line is logged, under the names OpenTelemetry's log correlation uses
 * (trace_id, span_id, trace_flags); nothing outside a span. Given to pino as its mixin.
 */
export function traceLogFields(): Record<string, string> {
  const span = trace.getSpan(context.active());
  if (span === undefined) return NONE;
  const { traceId, spanId, traceFlags } = span.spanContext();
  return { trace_id: traceId, span_id: spanId, trace_flags: traceFlags.toString(16).padStart(2, "0") };
}
