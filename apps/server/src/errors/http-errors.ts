import { ErrorCode, type ErrorCodeValue } from "@plant-store/contract";

/** A failure a client sees: its HTTP status, the contract's error code and a message safe to send. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCodeValue,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequestError extends HttpError {
  constructor(code: ErrorCodeValue, message: string) {
    super(400, code, message);
  }
}

/** 401 with the RFC 6750 challenge: error="invalid_token" only when a token was actually sent. */
export class UnauthorizedError extends HttpError {
  constructor(code: typeof ErrorCode.MissingToken | typeof ErrorCode.InvalidToken, message: string) {
    const challenge =
      code === ErrorCode.MissingToken
        ? 'Bearer realm="plant-store"'
        : `Bearer realm="plant-store", error="invalid_token", error_description="${message.replaceAll('"', "'")}"`;
    super(401, code, message, { "WWW-Authenticate": challenge });
  }
}

/** 403 for a valid token without a required scope, with the RFC 6750 insufficient_scope challenge. */
export class InsufficientScopeError extends HttpError {
  constructor(requiredScopes: readonly string[]) {
    const scope = requiredScopes.join(" ");
    super(403, ErrorCode.InsufficientScope, `token lacks the required scope: ${scope}`, {
      "WWW-Authenticate": `Bearer realm="plant-store", error="insufficient_scope", scope="${scope}"`,
    });
  }
}

/** 429 once a token's subject has used its requests for the window; Retry-After says when to come back. */
export class TooManyRequestsError extends HttpError {
  constructor(limitPerMinute: number, retryAfterSeconds: number) {
    super(
      429,
      ErrorCode.RateLimited,
      `too many requests: the limit is ${limitPerMinute} per minute; retry after ${retryAfterSeconds} s`,
      { "Retry-After": String(retryAfterSeconds) },
    );
  }
}

export class NotFoundError extends HttpError {
  constructor(message: string) {
    super(404, ErrorCode.NotFound, message);
  }
}

export class ConflictError extends HttpError {
  constructor(message: string) {
    super(409, ErrorCode.PlantIdConflict, message);
  }
}

export class PayloadTooLargeError extends HttpError {
  constructor(limitBytes: number) {
    super(413, ErrorCode.PayloadTooLarge, `request body is larger than the limit of ${limitBytes} bytes`);
  }
}

/**
 * 503: the server cannot serve right now (its store is unreachable, or it is shutting down).
 * `Retry-After` tells clients when to try again; a create may be retried as is (the id makes it safe).
 */
export class ServiceUnavailableError extends HttpError {
  constructor(
    code: typeof ErrorCode.StoreUnavailable | typeof ErrorCode.ShuttingDown | typeof ErrorCode.IdentityProviderUnavailable,
    message: string,
    options: { retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    const headers: Record<string, string> =
      options.retryAfterSeconds === undefined ? {} : { "Retry-After": String(options.retryAfterSeconds) };
    super(503, code, message, headers);
    this.cause = options.cause;
  }
}

/** 400 for bytes that are not HTTP/1.1 at all; sent on the socket, since no request object exists. */
export class MalformedRequestError extends HttpError {
  constructor() {
    super(400, ErrorCode.MalformedRequest, "request is not valid HTTP/1.1");
  }
}

/** 408 when headers or body did not arrive within HEADERS_TIMEOUT_MS / REQUEST_TIMEOUT_MS. */
export class RequestTimeoutError extends HttpError {
  constructor() {
    super(408, ErrorCode.RequestTimeout, "request was not received in time");
  }
}

/** 431 when the request's headers exceed Node's maximum header size. */
export class RequestHeadersTooLargeError extends HttpError {
  constructor() {
    super(431, ErrorCode.RequestHeadersTooLarge, "request headers are too large");
  }
}
