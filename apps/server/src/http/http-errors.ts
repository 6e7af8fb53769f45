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
