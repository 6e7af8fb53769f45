import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tearDownWith } from "./teardown.js";

/** Listens on 127.0.0.1 and a free port, resolving with the port; closed, connections too, when the test (or file) ends. */
export async function listenOnLoopback(server: Server): Promise<number> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  tearDownWith(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return (server.address() as AddressInfo).port;
}
