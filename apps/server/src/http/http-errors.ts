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

/** 503: the server cannot take traffic right now (shutting down, or its store is unreachable). */
export class ServiceUnavailableError extends HttpError {
  constructor(message: string) {
    super(503, ErrorCode.ServiceUnavailable, message);
  }
}
