import type { Server } from "node:http";
import express from "express";
import { errorHandler, notFound } from "../http/error-handler.js";
import { requestLogging } from "../http/request-logging.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "./metrics.js";
import { metricsRoutes } from "./metrics-routes.js";

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
