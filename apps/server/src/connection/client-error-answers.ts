import { randomUUID } from "node:crypto";
import type { Server } from "node:http";
import { type Duplex, finished } from "node:stream";
import { rawErrorResponse } from "../http-errors/error-body.js";
import { httpErrorForClientError } from "../http-errors/client-error.js";
import type { Logger } from "../logger.js";
import { responseInFlight } from "../runtime-internals/socket-response.js";

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
 * default, then closes the connection. No request was parsed, so the X-Request-Id is a new UUID.
 */
export function answerClientErrors(server: Server, logger: Logger): void {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const failure = httpErrorForClientError(error.code);
    const requestId = randomUUID();
    logger.info({ req: { id: requestId }, code: error.code, status: failure.status }, "connection rejected");
    answerInTurn(socket, () => {
      if (socket.writable) socket.end(rawErrorResponse(failure, requestId), () => socket.destroy());
      else socket.destroy();
    });
  });
}
