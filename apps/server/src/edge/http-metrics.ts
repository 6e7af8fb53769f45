import type { RequestHandler, Response } from "express";
import { markRequestStart, millisecondsSinceStart } from "./request-timing.js";
import { routeLabel } from "./route-label.js";
import type { Metrics } from "../process-state/metrics.js";

/**
 * Counts and times every request once its response is finished. A connection that closes before that
 * (the client gave up, or shutdown cut it off) counts as status "aborted", not as the status never sent.
 * One shared 'close' listener and a start time on the request: no timer closure per request.
 */
export function httpMetrics(metrics: Metrics): RequestHandler {
  // 'close' follows 'finish' for every answered response, and comes alone when the connection went first.
  function onResponseClosed(this: Response): void {
    const req = this.req;
    const labels = {
      method: req.method,
      route: routeLabel(req),
      status: this.writableFinished ? String(this.statusCode) : "aborted",
    };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, millisecondsSinceStart(req) / 1000);
  }

  return (req, res, next) => {
    markRequestStart(req);
    res.on("close", onResponseClosed);
    next();
  };
}
