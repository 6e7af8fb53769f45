import { z } from "zod";
import { ErrorCode, type ErrorCodeName } from "./error-codes.js";
import { ErrorSchema } from "./schemas.js";

/** A response header the API documents, by name. */
export type ResponseHeaderName = keyof typeof responseHeaders;

/** What each documented response header means; `X-Request-Id` is on every response. */
export const responseHeaders = {
  "X-Request-Id":
    "The request's id: the caller's X-Request-Id when it is safe to log, else a new UUID; it is in the server's log lines for this request.",
  "WWW-Authenticate": "The RFC 6750 Bearer challenge: realm, and error/error_description/scope when a token was sent.",
  "Retry-After": "Seconds to wait before sending the same request again.",
  RateLimit: "The IETF RateLimit field: the quota left in the current window and the seconds until it resets.",
  "RateLimit-Policy": "The IETF RateLimit-Policy field: the quota per window for this token's subject.",
} as const;

interface ErrorResponseSpec {
  /** What the status means for a client. */
  readonly description: string;
  /** The error codes an Error body under this status may carry. */
  readonly codes: readonly [ErrorCodeName, ...ErrorCodeName[]];
  /** The headers this status sends besides X-Request-Id. */
  readonly headers: readonly ResponseHeaderName[];
}

/**
 * Every error status the server answers, with the codes each may carry and the headers it sends. The router
 * declares its error responses from this table, the server builds error bodies typed by it, and the OpenAPI
 * document describes them from it: a code under the wrong status fails to compile everywhere.
 */
export const errorResponses = {
  400: {
    description:
      "The request is not a valid call: no body, not JSON, not a NewPlant, or not HTTP/1.1 at all (then the connection is closed).",
    codes: ["BodyRequired", "UnsupportedContentType", "MalformedJson", "ValidationFailed", "MalformedRequest"],
    headers: [],
  },
  401: {
    description:
      "No bearer token, or one that is malformed, expired, wrongly signed or for another issuer or audience.",
    codes: ["MissingToken", "InvalidToken"],
    headers: ["WWW-Authenticate"],
  },
  403: {
    description: "The token is valid but lacks a scope the server requires.",
    codes: ["InsufficientScope"],
    headers: ["WWW-Authenticate"],
  },
  404: {
    description: "No such route: the answer for every path and method the contract does not define.",
    codes: ["NotFound"],
    headers: [],
  },
  408: {
    description: "The request's headers or body did not arrive within the server's timeouts; the connection is closed.",
    codes: ["RequestTimeout"],
    headers: [],
  },
  409: {
    description: "A plant with this id exists with a different name or tag.",
    codes: ["PlantIdConflict"],
    headers: [],
  },
  413: {
    description: "The request body is larger than the server accepts.",
    codes: ["PayloadTooLarge"],
    headers: [],
  },
  429: {
    description:
      "This token's subject sent more requests than the server allows per minute; retry after Retry-After seconds.",
    codes: ["RateLimited"],
    headers: ["Retry-After", "RateLimit", "RateLimit-Policy"],
  },
  431: {
    description: "The request's headers are larger than the server accepts; the connection is closed.",
    codes: ["RequestHeadersTooLarge"],
    headers: [],
  },
  500: {
    description: "An unexpected failure on the server; the detail is in its logs only.",
    codes: ["InternalError"],
    headers: [],
  },
  503: {
    description:
      "The store or the identity provider cannot be reached in time, the server is over capacity, or it is shutting down; retry the same request after Retry-After seconds (the id makes it safe).",
    codes: ["StoreUnavailable", "ShuttingDown", "IdentityProviderUnavailable", "Overloaded"],
    headers: ["Retry-After"],
  },
} as const satisfies Record<number, ErrorResponseSpec>;

/** An HTTP status the server answers with an Error body. */
export type ErrorStatus = keyof typeof errorResponses;
/** The names of the error codes `S` may carry, e.g. `"MissingToken" | "InvalidToken"` for 401. */
export type ErrorCodeNameOf<S extends ErrorStatus> = (typeof errorResponses)[S]["codes"][number];
/** The numeric error codes `S` may carry, e.g. `40101 | 40102` for 401. */
export type ErrorCodeOf<S extends ErrorStatus> = (typeof ErrorCode)[ErrorCodeNameOf<S>];

/** The `error` field of status `S`'s body: a literal, or a union of literals, of its codes. */
function errorSchemaFor<S extends ErrorStatus>(status: S) {
  const { codes, description } = errorResponses[status];
  const [first, ...rest] = codes.map((name) => z.literal(ErrorCode[name]));
  // zod 3 has no union of one member; the static type is the status's code union either way.
  const code = (first && rest.length > 0
    ? z.union([first, ...rest] as [typeof first, typeof first])
    : first) as unknown as z.ZodType<ErrorCodeOf<S>>;
  return ErrorSchema.extend({
    error: code.describe(`Numeric error code (${codes.join(", ")}): ${description}`),
  });
}

/** The Error body schema of each error status, its `error` narrowed to that status's codes. */
export const errorSchemas = Object.fromEntries(
  Object.keys(errorResponses).map((status) => [status, errorSchemaFor(Number(status) as ErrorStatus)]),
) as { [S in ErrorStatus]: ReturnType<typeof errorSchemaFor<S>> };

/** The Error body of status `S`: `{ error: <one of S's codes>, message }`. */
export type ErrorBody<S extends ErrorStatus> = z.infer<(typeof errorSchemas)[S]>;
