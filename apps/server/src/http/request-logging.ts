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
 * One JSON log line per request: its id (an incoming X-Request-Id is kept, else a new UUID, echoed in the
 * response), method, path, client address, matched route, status and latency. Headers are never logged, so neither is
 * the bearer token; the logger redacts them as a second line of defence.
 */
export function requestLogging(logger: Logger) {
  const withRoute = (req: Request, _res: unknown, fields: object) => ({ ...fields, route: routeLabel(req) });
  return pinoHttp({
    logger,
    genReqId: (req, res) => {
      const incoming = req.headers["x-request-id"];
      const id = typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
      res.setHeader("X-Request-Id", id);
      return id;
    },
    customAttributeKeys: { responseTime: "latencyMs" },
    customSuccessObject: (req, res, fields) => withRoute(req as Request, res, fields),
    customErrorObject: (req, res, _error, fields) => withRoute(req as Request, res, fields),
    serializers: {
      // remoteAddress is Express's req.ip: the client's address as TRUST_PROXY lets X-Forwarded-For tell it.
      req: (req) => ({ id: req.id, method: req.method, url: pathOnly(req.url), remoteAddress: (req.raw as Request).ip }),
      res: (res) => ({ statusCode: res.statusCode }),
    },
  });
}
