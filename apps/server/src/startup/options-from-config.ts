import type { Config } from "../config.js";
import type { ConnectionTimeouts } from "../connection/server-timeouts.js";
import type { ShedOverloadOptions } from "../connection/shed-overload.js";
import type { StoreOptions } from "../store/open-store.js";
import type { TracesExport } from "../tracing/traces-export.js";

// The composition root's translation from the environment's names to each module's own options: below startup/,
// no module knows a variable's name.

/** The store DATABASE_URL names, and the PG_* settings of the server's pool. */
export function storeOptions(config: Config): StoreOptions {
  return {
    database: config.DATABASE_URL,
    postgres: {
      poolSize: config.PG_POOL_SIZE,
      statementTimeoutMs: config.PG_STATEMENT_TIMEOUT_MS,
      connectTimeoutMs: config.PG_CONNECT_TIMEOUT_MS,
    },
  };
}

/** HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS and KEEP_ALIVE_TIMEOUT_MS. */
export function connectionTimeouts(config: Config): ConnectionTimeouts {
  return {
    headersMs: config.HEADERS_TIMEOUT_MS,
    requestMs: config.REQUEST_TIMEOUT_MS,
    keepAliveMs: config.KEEP_ALIVE_TIMEOUT_MS,
  };
}

/** QUEUE_TIMEOUT_MS. */
export function admissionOptions(config: Config): ShedOverloadOptions {
  return { queueTimeoutMs: config.QUEUE_TIMEOUT_MS };
}

/**
 * Traces are exported when an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) and neither OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none
 * turns them off; otherwise undefined, and the server loads no part of the OpenTelemetry SDK. The sampler is
 * OTEL_TRACES_SAMPLER (with OTEL_TRACES_SAMPLER_ARG as its ratio), the batching OTEL_BSP_*.
 */
export function tracesExport(config: Config): TracesExport | undefined {
  const endpoint = config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? config.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (endpoint === undefined || config.OTEL_SDK_DISABLED === "true" || config.OTEL_TRACES_EXPORTER === "none") {
    return undefined;
  }
  return {
    protocol: config.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? config.OTEL_EXPORTER_OTLP_PROTOCOL,
    sampler: {
      name: config.OTEL_TRACES_SAMPLER,
      ...(config.OTEL_TRACES_SAMPLER_ARG !== undefined && { ratio: config.OTEL_TRACES_SAMPLER_ARG }),
    },
    batch: {
      maxQueueSize: config.OTEL_BSP_MAX_QUEUE_SIZE,
      maxExportBatchSize: config.OTEL_BSP_MAX_EXPORT_BATCH_SIZE,
      scheduledDelayMillis: config.OTEL_BSP_SCHEDULE_DELAY,
      exportTimeoutMillis: config.OTEL_BSP_EXPORT_TIMEOUT,
    },
  };
}
