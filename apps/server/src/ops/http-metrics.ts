import type { RequestHandler } from "express";
import { routeLabel } from "../http/route-label.js";
import type { Metrics } from "./metrics.js";

/** Counts and times every request once its response is finished (or its connection dropped). */
export function httpMetrics(metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const stopTimer = metrics.httpDuration.startTimer();
    let recorded = false;
    const record = () => {
      if (recorded) return;
      recorded = true;
      const labels = { method: req.method, route: routeLabel(req), status: String(res.statusCode) };
      metrics.httpRequests.inc(labels);
      stopTimer(labels);
    };
    res.once("finish", record);
    res.once("close", record);
    next();
  };
}
