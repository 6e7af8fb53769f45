import { ErrorCode, type ErrorCodeOf, type errorResponses, type ErrorStatus } from "@plant-store/contract";
import { insufficientScopeChallenge, unauthorizedChallenge } from "@plant-store/contract/wire";

type HeaderOf<S extends ErrorStatus> = (typeof errorResponses)[S]["headers"][number];

/** The headers the contract lets status `S` send (besides X-Request-Id): none for most, Retry-After on a 503. */
export type ErrorHeaders<S extends ErrorStatus> = [HeaderOf<S>] extends [never]
  ? Record<string, never>
  : { [Name in HeaderOf<S>]?: string };

/**
 * A failure a client sees: its status, a code the contract allows under that status, a message safe to
 * send, and the headers the status carries. A code or header its status does not allow fails to compile.
 */
export class HttpError<S extends ErrorStatus = ErrorStatus> extends Error {
  constructor(
    readonly status: S,
    readonly code: ErrorCodeOf<S>,
    message: string,
    readonly headers: ErrorHeaders<S> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class BadRequestError extends HttpError<400> {
  constructor(code: ErrorCodeOf<400>, message: string) {
    super(400, code, message);
  }
}

/** 401 with the RFC 6750 challenge: error="invalid_token" only when a token was actually sent. */
export class UnauthorizedError extends HttpError<401> {
  constructor(code: ErrorCodeOf<401>, message: string) {
    super(401, code, message, { "WWW-Authenticate": unauthorizedChallenge(code, message) });
  }
}

/** 403 for a valid token without a required scope, with the RFC 6750 insufficient_scope challenge. */
export class ForbiddenError extends HttpError<403> {
  constructor(requiredScopes: readonly string[]) {
    const scope = requiredScopes.join(" ");
    super(403, ErrorCode.InsufficientScope, `token lacks the required scope: ${scope}`, {
      "WWW-Authenticate": insufficientScopeChallenge(scope),
    });
  }
}

export class NotFoundError extends HttpError<404> {
  constructor(message: string) {
    super(404, ErrorCode.NotFound, message);
  }
}

export class ConflictError extends HttpError<409> {
  constructor(message: string) {
    super(409, ErrorCode.PlantIdConflict, message);
  }
}

export class PayloadTooLargeError extends HttpError<413> {
  constructor(limitBytes: number) {
    super(413, ErrorCode.PayloadTooLarge, `request body is larger than the limit of ${limitBytes} bytes`);
  }
}

/** 429 once a token's subject has used its requests for the window; Retry-After says when to come back. */
export class TooManyRequestsError extends HttpError<429> {
  constructor(limitPerMinute: number, retryAfterSeconds: number) {
    super(
      429,
      ErrorCode.RateLimited,
      `too many requests: the limit is ${limitPerMinute} per minute; retry after ${retryAfterSeconds} s`,
      { "Retry-After": String(retryAfterSeconds) },
    );
  }
}

/** 500: the detail of what went wrong stays in the log. */
export class InternalServerError extends HttpError<500> {
  constructor() {
    super(500, ErrorCode.InternalError, "internal server error");
  }
}

/**
 * 503: the server cannot serve right now (its store or identity provider is unreachable, or it is shutting
 * down). Retry-After tells clients when to try again; a create may be retried as is (the id makes it safe).
 */
export class ServiceUnavailableError extends HttpError<503> {
  constructor(code: ErrorCodeOf<503>, message: string, retryAfterSeconds: number, cause?: unknown) {
    super(503, code, message, { "Retry-After": String(retryAfterSeconds) }, { cause });
  }
}

/** 400 for bytes that are not HTTP/1.1 at all; sent on the socket, since no request object exists. */
export class MalformedRequestError extends HttpError<400> {
  constructor() {
    super(400, ErrorCode.MalformedRequest, "request is not valid HTTP/1.1");
  }
}

/** 408 when headers or body did not arrive within HEADERS_TIMEOUT_MS / REQUEST_TIMEOUT_MS. */
export class RequestTimeoutError extends HttpError<408> {
  constructor() {
    super(408, ErrorCode.RequestTimeout, "request was not received in time");
  }
}

/** 431 when the request's headers exceed Node's maximum header size. */
export class RequestHeadersTooLargeError extends HttpError<431> {
  constructor() {
    super(431, ErrorCode.RequestHeadersTooLarge, "request headers are too large");
  }
}
