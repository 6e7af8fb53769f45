import type { Server } from "node:http";
import express from "express";
import { errorHandler, notFound } from "../errors/error-handler.js";
import { requestLogging } from "../edge/request-logging.js";
import type { Logger } from "../logging/logger.js";
import type { Metrics } from "./metrics.js";
import { metricsRoutes } from "../routes/metrics-routes.js";

/** A second listener serving only GET /metrics (METRICS_PORT), so scrapes can stay on an internal network. */
export function listenMetricsServer(metrics: Metrics, logger: Logger, port: number, host: string): Server {
  const app = express();
  app.disable("x-powered-by");
  app.use(requestLogging(logger, app.request));
  app.use(metricsRoutes(metrics.registry));
  app.use(notFound);
  app.use(errorHandler);
  return app.listen(port, host);
}
