import { context, diag, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from "@opentelemetry/core";
import { registerInstrumentations } from "@opentelemetry/instrumentation";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, type SpanExporter, TracerProvider } from "@opentelemetry/sdk-trace";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import type { Registry } from "prom-client";
import type { TracesExport } from "./traces-export.js";
import { traceBodyValidation } from "./body-validation-span.js";
import { traceLogFields } from "./log-fields.js";
import { requestSpan } from "./request-span.js";
import { logSdkDiagnostics } from "./sdk-diagnostics.js";
import { samplerFor } from "./sampler.js";
import { spanProcessorMetrics } from "./span-processor-metrics.js";
import { traceStore } from "./store-span.js";
import { traceTokenVerification } from "./token-verification-span.js";
import type { Tracing } from "./tracing.js";

/** The OTLP/HTTP exporter for the configured encoding; it reads OTEL_EXPORTER_OTLP_* (endpoint, headers…) itself. */
async function createExporter(protocol: TracesExport["protocol"]): Promise<SpanExporter> {
  const { OTLPTraceExporter } =
    protocol === "http/json"
      ? await import("@opentelemetry/exporter-trace-otlp-http")
      : await import("@opentelemetry/exporter-trace-otlp-proto");
  return new OTLPTraceExporter();
}

/**
 * Starts the OpenTelemetry SDK: spans are batched (a bounded queue that drops, and counts, what a down or slow
 * collector cannot take) and exported over OTLP/HTTP; the sampler and the batching come from `traces` (SDK 3
 * reads neither from the environment), the resource from the standard variables, with service.name
 * "plant-store" unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES says otherwise. PostgreSQL queries get
 * client spans from pg's instrumentation.
 */
export async function startTracing(traces: TracesExport, registry: Registry): Promise<Tracing> {
  const provider = new TracerProvider({
    resource: defaultResource()
      .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: "plant-store" }))
      .merge(detectResources({ detectors: [envDetector] })),
    sampler: samplerFor(traces.sampler),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: await createExporter(traces.protocol),
        ...traces.batch,
        // Its own metrics: test/tracing.test.ts fails if dropped spans stop being counted.
        selfObsMeterProvider: spanProcessorMetrics(registry),
      }),
    ],
  });
  // What NodeTracerProvider.register() did before SDK 3: the AsyncLocalStorage context, W3C trace-context
  // (and baggage) propagation, and the global tracer provider.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  trace.setGlobalTracerProvider(provider);
  // requireParentSpan: the pool's and migrations' queries outside any request make no traces of their own.
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [new PgInstrumentation({ requireParentSpan: true })],
  });
  const tracer = trace.getTracer("@plant-store/server");
  const unsubscribes: (() => void)[] = [];

  return {
    instrument(parts) {
      const traced = traceStore(tracer, parts.store, parts.system);
      unsubscribes.push(traced.dispose, traceBodyValidation(tracer));
      return {
        store: traced.store,
        verifier: traceTokenVerification(tracer, parts.verifier),
        first: [requestSpan(tracer)],
      };
    },
    logFields: traceLogFields,
    logTo: logSdkDiagnostics,
    // Never rejects: spans a collector did not take are worth a warning, not a failed shutdown.
    async shutdown(timeoutMs) {
      for (const unsubscribe of unsubscribes.splice(0)) unsubscribe();
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<"gave up">((resolve) => {
        timer = setTimeout(() => resolve("gave up"), timeoutMs);
      });
      const exported = provider.shutdown().then(
        () => "exported" as const,
        (error: unknown) => {
          diag.warn("spans queued at shutdown could not be exported", error);
          return "failed" as const;
        },
      );
      const outcome = await Promise.race([exported, gaveUp]);
      clearTimeout(timer);
      if (outcome === "gave up") diag.warn(`spans queued at shutdown were not exported within ${timeoutMs} ms`);
    },
  };
}
