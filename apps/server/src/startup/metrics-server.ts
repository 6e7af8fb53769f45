import type { Server } from "node:http";
import express from "express";
import type { Registry } from "prom-client";
import { requestLogging } from "../edge/request-logging.js";
import { errorHandler, notFound } from "../error-mapping/error-handler.js";
import type { Logger } from "../logger.js";
import { metricsRoutes } from "../routes/metrics-routes.js";
import { createServer } from "../runtime-internals/node-http.js";

/**
 * A second server serving only GET /metrics, so scrapes can stay on an internal network: the server's own on
 * METRICS_PORT, and the scheduled backup's on `backup --metrics-port`.
 */
export function createMetricsServer(registry: Registry, logger: Logger): Server {
  const app = express();
  app.disable("x-powered-by");
  app.use(requestLogging(logger));
  app.use(metricsRoutes(registry));
  app.use(notFound);
  app.use(errorHandler(logger));
  return createServer(app);
}

/** Stops a metrics server and drops its connections: a scraper's keep-alive connection would hold close() open. */
export function closeMetricsServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
