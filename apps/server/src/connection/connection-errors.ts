import { STATUS_CODES, type Server, type ServerResponse } from "node:http";
import { type Duplex, finished } from "node:stream";
import type { Logger } from "../logging/logger.js";
import { type HttpError, MalformedRequestError, RequestHeadersTooLargeError, RequestTimeoutError } from "../errors/http-errors.js";

/** The failure a client caused below Express: Node's parser or its timeouts rejected the connection. */
function toHttpError(code: string | undefined): HttpError {
  if (code === "HPE_HEADER_OVERFLOW") return new RequestHeadersTooLargeError();
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return new RequestTimeoutError();
  return new MalformedRequestError();
}

/** A complete HTTP/1.1 response carrying the contract's Error body; the connection closes after it. */
function rawErrorResponse(failure: HttpError): string {
  const body = JSON.stringify({ error: failure.code, message: failure.message });
  return [
    `HTTP/1.1 ${failure.status} ${STATUS_CODES[failure.status]}`,
    "Content-Type: application/json; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
    "",
    body,
  ].join("\r\n");
}

/** The response Node is sending on this socket, if any (Node's own clientError default reads the same). */
function responseInFlight(socket: Duplex): ServerResponse | undefined {
  const response = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  return response && !response.writableFinished ? response : undefined;
}

/**
 * Answers once the responses to requests parsed before the error are sent (Node queues pipelined
 * responses and attaches the next when one finishes), so the error is never read as their answer. When
 * the error is in the request being answered itself (a timeout, a bad chunk in its body), it is answered
 * at once, or, if that request's response has begun, the connection is only closed: no reply is corrupted.
 */
function answerInTurn(socket: Duplex, answer: () => void): void {
  const response = responseInFlight(socket);
  if (!response) answer();
  else if (response.req.complete) finished(response, () => setImmediate(() => answerInTurn(socket, answer)));
  else if (response.headersSent) socket.destroy();
  else answer();
}

/**
 * Answers errors Node raises before Express sees a request (malformed HTTP, headers over the size limit,
 * headers or body slower than the timeouts) with the contract's JSON Error instead of Node's bodiless
 * default, then closes the connection.
 */
export function answerClientErrors(server: Server, logger: Logger): void {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const failure = toHttpError(error.code);
    logger.info({ code: error.code, status: failure.status }, "connection rejected");
    answerInTurn(socket, () => {
      if (socket.writable) socket.end(rawErrorResponse(failure), () => socket.destroy());
      else socket.destroy();
    });
  });
}
