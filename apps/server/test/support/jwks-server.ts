import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tearDownWith } from "./teardown.js";

/**
 * A real JWKS endpoint on 127.0.0.1: serves `{ keys }` at /jwks.json, counts its hits, and rotates
 * keys when told, like an identity provider does. Closed when the test (or file) ends.
 */
export async function startJwksServer(initialKeys: object[]) {
  let keys = initialKeys;
  let hits = 0;
  const server = createServer((req, res) => {
    if (req.url !== "/jwks.json") {
      res.writeHead(404).end();
      return;
    }
    hits += 1;
    res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  tearDownWith(close);
  return {
    url: `http://127.0.0.1:${port}/jwks.json`,
    /** How many times the key set was fetched. */
    hits: () => hits,
    /** Publishes a new key set (key rotation). */
    rotate(next: object[]) {
      keys = next;
    },
    close,
  };
}

export type JwksServer = Awaited<ReturnType<typeof startJwksServer>>;
