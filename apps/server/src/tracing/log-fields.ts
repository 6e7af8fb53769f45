import { context, trace } from "@opentelemetry/api";

/**
 * The ids of the span active when a line is logged, under the names OpenTelemetry's log correlation uses
 * (trace_id, span_id, trace_flags); nothing outside a span. Given to pino as its mixin.
 */
export function traceLogFields(): Record<string, string> {
  const span = trace.getSpan(context.active());
  // A new object each time: pino merges the line's own fields into what the mixin returns.
  if (span === undefined) return {};
  const { traceId, spanId, traceFlags } = span.spanContext();
  return { trace_id: traceId, span_id: spanId, trace_flags: traceFlags.toString(16).padStart(2, "0") };
}
