import { randomUUID } from "node:crypto";
import type { RequestHandler, Response } from "express";
import type { Logger } from "pino";
import { requestIdFor } from "../request-id.js";
import { markRequestStart, millisecondsSinceStart } from "./request-timing.js";
import { routeLabel } from "./route-label.js";

/** The URL without its query string: a query could carry a token (`?access_token=`) and logs must not. */
function pathOnly(url: string): string {
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}

/** Responses whose 503 states where the server is (its store not open yet, shutting down), not a failure. */
const stateAnswers = new WeakSet<Response>();

/** Marks a 503 that states where the server is: its access line is info; the state's change has a line of its own. */
export function answersWithState(res: Response): void {
  stateAnswers.add(res);
}

/**
 * Failures of the server are errors; a 503 is a warning (an outage, whose cause the error handler logs too), unless
 * it states where the server is; anything a client caused is part of normal traffic.
 */
function levelFor(status: number, res: Response): "error" | "warn" | "info" {
  if (status === 503) return stateAnswers.has(res) ? "info" : "warn";
  return status >= 500 ? "error" : "info";
}

/**
 * One JSON log line per request: its id (an incoming X-Request-Id is kept, else a new UUID, echoed in the
 * response), method, path, client address, matched route, status and latency. Headers are never logged,
 * so neither is the bearer token (the server's other log lines are redacted as a second line of defence).
 *
 * Written by hand rather than with pino-http, which builds two child loggers and three listeners per
 * request: this costs one listener and one log call (measured A/B under wrk).
 */
export function requestLogging(logger: Logger): RequestHandler {
  // The access line has a fixed shape with no headers in it, so searching it for redact paths is wasted work.
  const accessLog = logger.child({}, { redact: [] });

  // 'close' follows 'finish' for every answered response, and comes alone when the connection went first.
  function onResponseClosed(this: Response): void {
    const req = this.req;
    const status = this.statusCode;
    const answered = this.writableFinished;
    accessLog[answered ? levelFor(status, this) : "info"](
      {
        req: { id: req.id, method: req.method, url: pathOnly(req.url), remoteAddress: req.ip },
        res: { statusCode: status },
        route: routeLabel(req),
        latencyMs: Math.round(millisecondsSinceStart(req) * 100) / 100,
      },
      answered ? "request completed" : "request aborted",
    );
  }

  return (req, res, next) => {
    markRequestStart(req);
    req.id = requestIdFor(req.headers["x-request-id"]) ?? randomUUID();
    res.setHeader("X-Request-Id", req.id);
    res.on("close", onResponseClosed);
    next();
  };
}
