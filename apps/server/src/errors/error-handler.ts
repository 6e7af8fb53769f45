import { ErrorCode } from "@plant-store/contract";
import type { ErrorRequestHandler, RequestHandler } from "express";
import { HttpError, NotFoundError } from "./http-errors.js";

/** Any request that matched no route. */
export const notFound: RequestHandler = (req, _res, next) => {
  next(new NotFoundError(`no route for ${req.method} ${req.path}`));
};

/**
 * The one place a thrown error becomes a response: the contract's Error body, never HTML or a stack.
 * Unexpected errors get a generic 500; their detail goes to the log only.
 */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const failure = err instanceof HttpError ? err : undefined;
  if (!failure) req.log.error({ err }, "unexpected failure");
  else if (failure.status >= 500) req.log.warn({ err: failure.cause }, failure.message);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const status = failure?.status ?? 500;
  res.status(status).set(failure?.headers ?? {});
  // A body abandoned halfway (413 on a chunked body) is neither read on nor skipped by Node, which then
  // resets the connection: tell keep-alive clients not to send their next request on it. A body never
  // touched (401 before reading) is skipped by Node itself, and the connection stays usable.
  if (req.readableDidRead && !req.complete) res.set("Connection", "close");
  res.json({
    error: failure?.code ?? ErrorCode.InternalError,
    message: failure?.message ?? "internal server error",
  });
};
