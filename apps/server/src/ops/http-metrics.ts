import { performance } from "node:perf_hooks";
import type { Request, RequestHandler, Response } from "express";
import { routeLabel } from "../http/route-label.js";
import type { Metrics } from "./metrics.js";

const startedAt = Symbol("metricsStartedAt");

type TimedRequest = Request & { [startedAt]: number };

/**
 * Counts and times every request once its response is finished. A connection that closes before that
 * (the client gave up, or shutdown cut it off) counts as status "aborted", not as the status never sent.
 * One shared 'close' listener and a start time on the request: no timer closure per request.
 */
export function httpMetrics(metrics: Metrics): RequestHandler {
  // 'close' follows 'finish' for every answered response, and comes alone when the connection went first.
  function onResponseClosed(this: Response): void {
    const req = this.req as TimedRequest;
    const labels = {
      method: req.method,
      route: routeLabel(req),
      status: this.writableFinished ? String(this.statusCode) : "aborted",
    };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, (performance.now() - req[startedAt]) / 1000);
  }

  return (req, res, next) => {
    (req as TimedRequest)[startedAt] = performance.now();
    res.on("close", onResponseClosed);
    next();
  };
}
