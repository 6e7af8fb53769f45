import type { Server } from "node:http";
import { Server as NetServer } from "node:net";

/**
 * Closes the listening socket and resolves once every open connection has closed by itself.
 *
 * http's close() (since Node 19) also destroys every keep-alive connection idle at that instant, and a
 * client may already have sent its next request on one: that request is lost to a reset. net's close(),
 * which http's close() was until then, only stops accepting. Each open connection is then closed by Node
 * after its next answer (every answer says `Connection: close` once shutdown has begun) or by its
 * keep-alive timeout, announced to the client in the `Keep-Alive` header so it stops reusing it before then.
 * Node keeps sweeping headers/request timeouts meanwhile (the sweep timer is unref'd: it holds nothing open).
 * Needed for correctness (no reset for a request that arrived), not speed. It leans on http.Server being a
 * net.Server subclass whose close() override does the idle sweep: test/runtime-internals/stop-accepting.test.ts
 * fails if a Node release changes either.
 */
export function stopAccepting(server: Server): Promise<void> {
  return new Promise((resolve) => {
    NetServer.prototype.close.call(server, () => resolve());
  });
}
