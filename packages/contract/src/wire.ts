import contentType from "content-type";
import type { ZodError, ZodIssue } from "zod";
import { ErrorCode } from "./error-codes.js";
import type { ErrorBody, ErrorCodeOf } from "./error-responses.js";
import { parseLosslessJson } from "./lossless-json-parse.js";

export { parseLosslessJson };

/** An Authorization header of the Bearer scheme at all; without one a request has no token (401 MissingToken). */
export const BEARER_SCHEME = /^Bearer(\s|$)/i;

/** The token of a Bearer header: RFC 6750's b64token after "Bearer "; a header it does not match holds a malformed token. */
export const BEARER_TOKEN = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)[ ]*$/i;

/** The WWW-Authenticate challenge of a 401 (RFC 6750): error="invalid_token" only when a token was sent. */
export function unauthorizedChallenge(code: ErrorCodeOf<401>, message: string): string {
  return code === ErrorCode.MissingToken
    ? 'Bearer realm="plant-store"'
    : `Bearer realm="plant-store", error="invalid_token", error_description="${message.replaceAll('"', "'")}"`;
}

/** The WWW-Authenticate challenge of a 403 for a token without every required scope (RFC 6750). */
export function insufficientScopeChallenge(scope: string): string {
  return `Bearer realm="plant-store", error="insufficient_scope", scope="${scope}"`;
}

/** An X-Request-Id the API keeps and echoes; any other value is replaced by a new UUID. */
export const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Why a request body is refused before validation: a 400 Error body, exactly as the server sends it. */
export type BodyRejection = ErrorBody<400>;

/** The refusal of a request without a body, or with an empty one. */
export const bodyRequired: BodyRejection = {
  error: ErrorCode.BodyRequired,
  message: "request body is required: send a NewPlant as JSON",
};

/** Whether a request's headers announce a body (a chunked one, or a Content-Length above 0). */
export function declaresBody(headers: Record<string, string | string[] | undefined>): boolean {
  return headers["transfer-encoding"] !== undefined || Number(headers["content-length"] ?? 0) > 0;
}

/** The refusal of a Content-Type other than application/json (UTF-8); undefined when it is acceptable. */
export function contentTypeRejection(header: string | undefined): BodyRejection | undefined {
  let parsed: contentType.ParsedMediaType;
  try {
    parsed = contentType.parse(header ?? "");
  } catch {
    return { error: ErrorCode.UnsupportedContentType, message: "Content-Type must be application/json" };
  }
  const charset = parsed.parameters.charset?.toLowerCase();
  if (parsed.type !== "application/json" || (charset !== undefined && charset !== "utf-8")) {
    return { error: ErrorCode.UnsupportedContentType, message: "Content-Type must be application/json (UTF-8)" };
  }
  return undefined;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A request body's bytes read as the API reads them: UTF-8 JSON, parsed losslessly, or the 400 it answers. */
export function parseJsonBody(bytes: Uint8Array): { body: unknown } | { rejection: BodyRejection } {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { rejection: { error: ErrorCode.MalformedJson, message: "request body is not valid UTF-8" } };
  }
  if (text.trim() === "") return { rejection: bodyRequired };
  try {
    return { body: parseLosslessJson(text) };
  } catch (error) {
    return {
      rejection: {
        error: ErrorCode.MalformedJson,
        message: `request body is not valid JSON: ${(error as Error).message}`,
      },
    };
  }
}

// Integer literals arrive as bigint; to an API user they are all numbers, so messages speak of numbers and
// integers, not JavaScript types.
const typeWords: Record<string, string> = { bigint: "integer", number: "number" };

function article(word: string): string {
  return /^[aeiou]/.test(word) ? "an" : "a";
}

function describeIssue(issue: ZodIssue): string {
  if (issue.code === "invalid_type") {
    const expected = typeWords[issue.expected] ?? issue.expected;
    const received = issue.received === "bigint" ? "number" : issue.received;
    return received === "undefined" ? "is required" : `must be ${article(expected)} ${expected}, got ${received}`;
  }
  return issue.message;
}

/** One line naming each invalid field of the body, e.g. `id: must be an integer, got string`. */
export function describeValidationError(error: ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "body"}: ${describeIssue(issue)}`)
    .join("; ");
}
