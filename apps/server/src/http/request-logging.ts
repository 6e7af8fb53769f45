import { randomUUID } from "node:crypto";
import type { Request } from "express";
import type { Logger } from "pino";
import { pinoHttp } from "pino-http";
import { routeLabel } from "./route-label.js";

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** The URL without its query string: a query could carry a token (`?access_token=`) and logs must not. */
function pathOnly(url: string | undefined): string | undefined {
  return url?.split("?", 1)[0];
}

/**
 * Failures of the server are errors; 503 is a warning, since it is what readiness answers on purpose
 * during every shutdown; anything a client caused is part of normal traffic.
 */
function levelFor(status: number, error: Error | undefined): "error" | "warn" | "info" {
  if (status === 503) return "warn";
  return error !== undefined || status >= 500 ? "error" : "info";
}

/**
 * One JSON log line per request: its id (an incoming X-Request-Id is kept, else a new UUID, echoed in the
 * response), method, path, client address, matched route, status and latency. Headers are never logged,
 * so neither is the bearer token; the logger redacts them as a second line of defence.
 */
export function requestLogging(logger: Logger) {
  const withRoute = (req: unknown, fields: object) => ({ ...fields, route: routeLabel(req as Request) });
  return pinoHttp({
    logger,
    genReqId: (req, res) => {
      const incoming = req.headers["x-request-id"];
      const id = typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
      res.setHeader("X-Request-Id", id);
      return id;
    },
    customAttributeKeys: { responseTime: "latencyMs" },
    customLogLevel: (_req, res, error) => levelFor(res.statusCode, error),
    customSuccessObject: (req, _res, fields) => withRoute(req, fields),
    customErrorObject: (req, _res, _error, fields) => withRoute(req, fields),
    // The serializers below read the raw request and response; pino-std-serializers' wrappers would first
    // build a full copy of each (headers included) on every request, only for these few fields.
    wrapSerializers: false,
    serializers: {
      // remoteAddress is Express's req.ip: the client's address as TRUST_PROXY lets X-Forwarded-For tell it.
      req: (req: Request) => ({ id: req.id, method: req.method, url: pathOnly(req.url), remoteAddress: req.ip }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  });
}
