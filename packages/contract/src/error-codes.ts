/**
 * Every error code the server sends in an Error body's `error` field, by name.
 * The thousands give the HTTP status; the code says which failure it is, so clients branch on names.
 */
export const ErrorCode = {
  /** 400: the request has no body. */
  BodyRequired: 40001,
  /** 400: Content-Type is not application/json (UTF-8). */
  UnsupportedContentType: 40002,
  /** 400: the body is not well-formed UTF-8 JSON, or repeats a key. */
  MalformedJson: 40003,
  /** 400: the JSON does not match NewPlant; the message names the field. */
  ValidationFailed: 40004,
  /** 400: the bytes on the connection are not a valid HTTP/1.1 request. */
  MalformedRequest: 40005,
  /** 401: no bearer token was sent. */
  MissingToken: 40101,
  /** 401: the bearer token is malformed, expired, not yet valid, wrongly signed or for another issuer/audience. */
  InvalidToken: 40102,
  /** 403: the token is valid but lacks the scope the server requires (JWT_REQUIRED_SCOPE). */
  InsufficientScope: 40301,
  /** 404: no such route. */
  NotFound: 40401,
  /** 408: the request's headers or body did not arrive within the server's timeouts. */
  RequestTimeout: 40801,
  /** 409: a plant with this id exists with a different name or tag. */
  PlantIdConflict: 40901,
  /** 413: the body is larger than the server accepts. */
  PayloadTooLarge: 41301,
  /** 429: this token's subject sent more requests than the server allows per minute; see Retry-After. */
  RateLimited: 42901,
  /** 431: the request's headers are larger than the server accepts. */
  RequestHeadersTooLarge: 43101,
  /** 500: an unexpected failure on the server; details are in its logs only. */
  InternalError: 50001,
  /** 503: the store could not be reached in time; retry the same request (the id makes a retry safe). */
  StoreUnavailable: 50301,
  /** 503: the server is shutting down (GET /readyz); send new requests to another instance. */
  ShuttingDown: 50302,
  /** 503: the identity provider's keys (JWKS) cannot be fetched right now to check the token; retry later. */
  IdentityProviderUnavailable: 50303,
  /** 503: the server is over capacity and refused the request before doing any of its work; retry after Retry-After. */
  Overloaded: 50304,
} as const;

/** The name of an error code, e.g. `"PlantIdConflict"`. */
export type ErrorCodeName = keyof typeof ErrorCode;
/** A numeric error code, e.g. 40901. */
export type ErrorCodeValue = (typeof ErrorCode)[ErrorCodeName];

const namesByCode = new Map<number, ErrorCodeName>(
  Object.entries(ErrorCode).map(([name, code]) => [code, name as ErrorCodeName]),
);

/** The name of an error code, or undefined for a code this version does not know. */
export function errorCodeName(code: number): ErrorCodeName | undefined {
  return namesByCode.get(code);
}
