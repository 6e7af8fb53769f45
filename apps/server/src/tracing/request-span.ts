import {
  type Attributes,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from "@opentelemetry/semantic-conventions";
import type { Request, RequestHandler, Response } from "express";
import { endBodyValidation } from "./body-validation-span.js";

// HTTP semantic conventions: other methods are reported as _OTHER, so a client cannot mint span names.
const KNOWN_METHODS = new Set(["CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE"]);

const requestSpans = new WeakMap<Request, { span: Span; method: string }>();

/**
 * The request's SERVER span (HTTP semantic conventions), a child of the caller's span when the request
 * carries a W3C traceparent. The rest of the request runs in its context, and so do the response's event
 * listeners added after it (the access log among them), so every log line about the request carries its ids.
 */
export function requestSpan(tracer: Tracer): RequestHandler {
  function onResponseClosed(this: Response): void {
    const req = this.req;
    const opened = requestSpans.get(req);
    if (opened === undefined) return;
    const { span, method } = opened;
    const route: unknown = req.route?.path;
    if (typeof route === "string") {
      span.setAttribute(ATTR_HTTP_ROUTE, route);
      span.updateName(`${method} ${route}`);
    }
    const answered = this.writableFinished;
    if (answered) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, this.statusCode);
    // For a server, 4xx is the client's doing: only 5xx (and a response never completed) marks a failure.
    const errorType = !answered ? "aborted" : this.statusCode >= 500 ? String(this.statusCode) : undefined;
    if (errorType !== undefined) {
      span.setAttribute(ATTR_ERROR_TYPE, errorType);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    // Closed before a handler took the body: the contract's validation refused it (or the client left).
    endBodyValidation(req, answered ? String(this.statusCode) : "aborted");
    span.end();
  }

  return (req, res, next) => {
    const method = KNOWN_METHODS.has(req.method) ? req.method : "_OTHER";
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const attributes: Attributes = {
      [ATTR_HTTP_REQUEST_METHOD]: method,
      [ATTR_URL_PATH]: req.path,
      [ATTR_URL_SCHEME]: req.protocol,
      [ATTR_NETWORK_PROTOCOL_VERSION]: req.httpVersion,
    };
    // Each only when known: OpenTelemetry refuses attributes without a value.
    if (req.hostname) attributes[ATTR_SERVER_ADDRESS] = req.hostname;
    if (req.socket.localPort) attributes[ATTR_SERVER_PORT] = req.socket.localPort;
    if (req.ip) attributes[ATTR_CLIENT_ADDRESS] = req.ip;
    if (req.headers["user-agent"]) attributes[ATTR_USER_AGENT_ORIGINAL] = req.headers["user-agent"];
    const span = tracer.startSpan(method === "_OTHER" ? "HTTP" : method, { kind: SpanKind.SERVER, attributes }, parent);
    requestSpans.set(req, { span, method });
    res.once("close", onResponseClosed);
    const active = trace.setSpan(parent, span);
    context.bind(active, res);
    context.with(active, next);
  };
}
