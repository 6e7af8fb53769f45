import type { ErrorBody, ErrorStatus } from "@plant-store/contract";
import { STATUS_CODES } from "../runtime-internals/node-http.js";
import type { HttpError } from "./http-errors.js";

/**
 * The one place an Error body is built, typed by the contract: `ErrorBody<S>` is the contract's Error schema
 * with `error` narrowed to each status's codes (HttpError ties the code to its status), so a renamed or misspelt field fails to compile here.
 */
export function errorBody(failure: HttpError): ErrorBody<ErrorStatus> {
  return { error: failure.code, message: failure.message };
}

/**
 * A complete HTTP/1.1 response carrying `failure`'s Error body, for a socket that has no response object
 * (Node's parser rejected the request); the connection closes after it.
 */
export function rawErrorResponse(failure: HttpError, requestId: string): string {
  const body = JSON.stringify(errorBody(failure));
  return [
    `HTTP/1.1 ${failure.status} ${STATUS_CODES[failure.status]}`,
    "Content-Type: application/json; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    ...Object.entries(failure.headers).map(([name, value]) => `${name}: ${value}`),
    "Connection: close",
    "",
    body,
  ].join("\r\n");
}
