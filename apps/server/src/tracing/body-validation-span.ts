import { SpanStatusCode, type Span, type Tracer } from "@opentelemetry/api";
import { ATTR_ERROR_TYPE } from "@opentelemetry/semantic-conventions";
import type { Request, RequestHandler } from "express";
import { errorTypeOf } from "./error-type.js";

const openSpans = new WeakMap<Request, Span>();

/**
 * Runs the body reader (Content-Type, size limit, UTF-8, lossless JSON) in a "validate body" span that stays
 * open through the contract's schema check, which ts-rest runs after it: the span ends when a route handler
 * is entered (endBodyValidationOnEntry), when the reader fails, or when the response closes first.
 */
export function traceBodyValidation(tracer: Tracer, readBody: RequestHandler): RequestHandler {
  return (req, res, next) => {
    openSpans.set(req, tracer.startSpan("validate body"));
    readBody(req, res, (error?: unknown) => {
      if (error !== undefined && error !== null) endBodyValidation(req, errorTypeOf(error));
      next(error);
    });
  };
}

/** Ends the request's body-validation span if it is still open; errorType marks it failed. */
export function endBodyValidation(req: Request, errorType?: string): void {
  const span = openSpans.get(req);
  if (span === undefined) return;
  openSpans.delete(req);
  if (errorType !== undefined) {
    span.setAttribute(ATTR_ERROR_TYPE, errorType);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

type Handler = (args: { req: Request }) => unknown;

/** A ts-rest router whose handlers end the body-validation span on entry: ts-rest calls them only with a valid body. */
export function endBodyValidationOnEntry<Router extends object>(router: Router): Router {
  const wrap = (handler: Handler): Handler => (args) => {
    endBodyValidation(args.req);
    return handler(args);
  };
  const wrapped: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(router)) {
    if (typeof value === "function") wrapped[key] = wrap(value as Handler);
    else if (typeof value?.handler === "function") wrapped[key] = { ...value, handler: wrap(value.handler) };
    else wrapped[key] = typeof value === "object" && value !== null ? endBodyValidationOnEntry(value) : value;
  }
  return wrapped as Router;
}
