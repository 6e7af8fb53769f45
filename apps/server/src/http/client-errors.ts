import { STATUS_CODES, type Server, type ServerResponse } from "node:http";
import { type Duplex, finished } from "node:stream";
import type { Logger } from "../logger.js";
import { type HttpError, MalformedRequestError, RequestHeadersTooLargeError, RequestTimeoutError } from "./http-errors.js";

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
 * Runs `then` once every response to the requests parsed before the error is sent: Node queues
 * pipelined responses and attaches the next when one finishes, so this waits until none is left.
 */
function afterResponsesInFlight(socket: Duplex, then: () => void): void {
  const response = responseInFlight(socket);
  if (!response) {
    then();
    return;
  }
  finished(response, () => setImmediate(() => afterResponsesInFlight(socket, then)));
}

/**
 * Answers errors Node raises before Express sees a request (malformed HTTP, headers over the size limit,
 * headers or body slower than the timeouts) with the contract's JSON Error instead of Node's bodiless
 * default, then closes the connection.
 *
 * When bad bytes follow pipelined requests still being answered (a create waiting for its commit), the
 * error is sent after their answers, so a client never reads it as the answer to a request that
 * succeeded. A timeout is about the request in flight itself: it is answered at once, unless that
 * request's response has begun, when the connection is only closed, so no reply is ever corrupted.
 */
export function answerClientErrors(server: Server, logger: Logger): void {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const failure = toHttpError(error.code);
    logger.info({ code: error.code, status: failure.status }, "connection rejected");
    const answer = () => {
      if (socket.writable) socket.end(rawErrorResponse(failure), () => socket.destroy());
      else socket.destroy();
    };
    if (failure instanceof RequestTimeoutError) {
      if (responseInFlight(socket)?.headersSent) socket.destroy();
      else answer();
    } else {
      afterResponsesInFlight(socket, answer);
    }
  });
}
