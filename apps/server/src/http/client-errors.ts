import { STATUS_CODES, type Server } from "node:http";
import type { Duplex } from "node:stream";
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

/** The response in flight on this socket, if Express has one; Node's own handler checks the same. */
function responseStarted(socket: Duplex): boolean {
  return (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
}

/**
 * Answers errors Node raises before Express sees a request (malformed HTTP, headers over the size limit,
 * headers or body slower than the timeouts) with the contract's JSON Error instead of Node's bodiless
 * default, then closes the connection. Nothing is written when the peer is gone or a response has begun,
 * so a reply can never be corrupted.
 */
export function answerClientErrors(server: Server, logger: Logger): void {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === "ECONNRESET" || !socket.writable || responseStarted(socket)) {
      socket.destroy();
      return;
    }
    const failure = toHttpError(error.code);
    logger.info({ code: error.code, status: failure.status }, "connection rejected");
    socket.end(rawErrorResponse(failure), () => socket.destroy());
  });
}
