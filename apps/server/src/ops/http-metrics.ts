import type { RequestHandler } from "express";
import { routeLabel } from "../http/route-label.js";
import type { Metrics } from "./metrics.js";

/**
 * Counts and times every request once its response is finished. A connection that closes before that
 * (the client gave up, or shutdown cut it off) counts as status "aborted", not as the status never sent.
 */
export function httpMetrics(metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const stopTimer = metrics.httpDuration.startTimer();
    let recorded = false;
    const record = (status: string) => {
      if (recorded) return;
      recorded = true;
      const labels = { method: req.method, route: routeLabel(req), status };
      metrics.httpRequests.inc(labels);
      stopTimer(labels);
    };
    res.once("finish", () => record(String(res.statusCode)));
    res.once("close", () => record("aborted"));
    next();
  };
}
