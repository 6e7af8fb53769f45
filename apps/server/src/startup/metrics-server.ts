import type { Server } from "node:http";
import express from "express";
import { requestLogging } from "../edge/request-logging.js";
import { errorHandler, notFound } from "../error-mapping/error-handler.js";
import type { Logger } from "../logger.js";
import { metricsRoutes } from "../routes/metrics-routes.js";
import { createServer } from "../runtime-internals/node-http.js";
import type { Metrics } from "../ops/metrics.js";

/** A second server serving only GET /metrics (METRICS_PORT), so scrapes can stay on an internal network. */
export function createMetricsServer(metrics: Metrics, logger: Logger): Server {
  const app = express();
  app.disable("x-powered-by");
  app.use(requestLogging(logger));
  app.use(metricsRoutes(metrics.registry));
  app.use(notFound);
  app.use(errorHandler(logger));
  return createServer(app);
}
