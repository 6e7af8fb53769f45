import type { ServerResponse } from "node:http";
import type { Duplex } from "node:stream";

/**
 * The response Node is sending on this socket, if any. node:http keeps it in the socket's private
 * `_httpMessage` field (its own clientError default reads the same field); there is no public API for it.
 * Needed for correctness, not speed: a connection-level error must not be written into a pipelined
 * response that is still being sent. test/runtime-internals/socket-response.test.ts fails if Node renames it.
 */
export function responseInFlight(socket: Duplex): ServerResponse | undefined {
  const response = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  return response && !response.writableFinished ? response : undefined;
}
