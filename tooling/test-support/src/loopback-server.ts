import type { Server } from "node:http";
import { closeServer, listenOnFreePort } from "./close-server.js";
import { tearDownWith } from "./teardown.js";

/** Listens on 127.0.0.1 and a free port, resolving with the port; closed, connections too, when the test (or file) ends. */
export async function listenOnLoopback(server: Server): Promise<number> {
  const port = await listenOnFreePort(server);
  tearDownWith(() => closeServer(server));
  return port;
}
