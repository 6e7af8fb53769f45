import type { ErrorRequestHandler, RequestHandler } from "express";
import { answersWithState } from "../edge/request-logging.js";
import type { Logger } from "../logger.js";
import { requestLogger } from "../request-logger.js";
import { errorBody } from "../http-errors/error-body.js";
import { InternalServerError, NotFoundError } from "../http-errors/http-errors.js";
import { httpErrorFor } from "./http-error-for.js";

/** Any request that matched no route. */
export const notFound: RequestHandler = (req, _res, next) => {
  next(new NotFoundError(`no route for ${req.method} ${req.path}`));
};

/**
 * The one place a thrown error becomes a response: the contract's Error body, never HTML or a stack, with
 * the headers its status carries. Unexpected errors get a generic 500; their detail goes to the log only. A 5xx
 * with a cause (an outage) logs it; one without states where the server is (not open yet, shutting down), which
 * the server logs once as it changes, so its answers add no line beyond the access log's, and that one at info.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const mapped = httpErrorFor(err);
    if (!mapped) requestLogger(logger, req).error({ err }, "unexpected failure");
    else if (mapped.status >= 500 && mapped.cause !== undefined)
      requestLogger(logger, req).warn({ err: mapped.cause }, mapped.message);
    else if (mapped.status === 503) answersWithState(res);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const failure = mapped ?? new InternalServerError();
    res.status(failure.status).set(failure.headers);
    // A body abandoned halfway (413 on a chunked body) is neither read on nor skipped by Node, which then
    // resets the connection: tell keep-alive clients not to send their next request on it. A body never
    // touched (401 before reading) is skipped by Node itself, and the connection stays usable.
    if (req.readableDidRead && !req.complete) res.set("Connection", "close");
    res.json(errorBody(failure));
  };
}
