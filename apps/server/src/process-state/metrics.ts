import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";

/** The server's Prometheus metrics, in a registry of their own so several apps in one process never clash. */
export interface Metrics {
  registry: Registry;
  httpRequests: Counter<"method" | "route" | "status">;
  httpDuration: Histogram<"method" | "route" | "status">;
  storeDuration: Histogram<"operation" | "outcome">;
  /** Admission control (connection/shed-overload.ts): refusals. */
  requestsShed: Counter;
}

/** Creates the registry with process metrics (CPU, memory, event-loop lag, GC) and the server's own. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const httpLabels = ["method", "route", "status"] as const;
  return {
    registry,
    httpRequests: new Counter({
      name: "http_requests_total",
      help: "HTTP requests answered, by method, matched route and status.",
      labelNames: httpLabels,
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: "http_request_duration_seconds",
      help: "Time from receiving a request to finishing its response, by method, matched route and status.",
      labelNames: httpLabels,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    storeDuration: new Histogram({
      name: "plant_store_operation_duration_seconds",
      help: "Time the plant store took per operation (a create includes waiting for its group commit).",
      labelNames: ["operation", "outcome"],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers: [registry],
    }),
    requestsShed: new Counter({
      name: "plant_store_requests_shed_total",
      help: "Requests refused with 503 Overloaded before any work: past their deadline, or unable to meet it.",
      registers: [registry],
    }),
  };
}
