import { SpanStatusCode, type Span, type Tracer } from "@opentelemetry/api";
import { ATTR_ERROR_TYPE } from "@opentelemetry/semantic-conventions";
import type { Request } from "express";
import { bodyAccepted, bodyReadStarted, bodyRefused } from "../request-body/body-diagnostics.js";
import { errorTypeOf } from "./error-type.js";

const openSpans = new WeakMap<Request, Span>();

/**
 * The body's "validate body" span, from the body diagnostics channels: it opens as the body reader (Content-Type,
 * size limit, UTF-8, lossless JSON) starts, in the request's context, and stays open through the contract's schema
 * check, which ts-rest runs after it. It ends when the route handler has the body, when the reader refuses it, or
 * when the response closes first (request-span.ts). Returns the unsubscribe.
 */
export function traceBodyValidation(tracer: Tracer): () => void {
  const started = (message: unknown) => {
    const { req } = message as { req: Request };
    openSpans.set(req, tracer.startSpan("validate body"));
  };
  const refused = (message: unknown) => {
    const { req, error } = message as { req: Request; error: unknown };
    endBodyValidation(req, errorTypeOf(error));
  };
  const accepted = (message: unknown) => endBodyValidation((message as { req: Request }).req);
  bodyReadStarted.subscribe(started);
  bodyRefused.subscribe(refused);
  bodyAccepted.subscribe(accepted);
  return () => {
    bodyReadStarted.unsubscribe(started);
    bodyRefused.unsubscribe(refused);
    bodyAccepted.unsubscribe(accepted);
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
