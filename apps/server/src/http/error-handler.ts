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
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const status = failure?.status ?? 500;
  res.status(status).set(failure?.headers ?? {});
  // Answered before the client finished sending its body (413, or a body cut off): Node resets such a
  // connection once the answer is out, so tell keep-alive clients not to send their next request on it.
  if (!req.complete) res.set("Connection", "close");
  res.json({
    error: failure?.code ?? ErrorCode.InternalError,
    message: failure?.message ?? "internal server error",
  });
};
