import { createServer } from "node:http";
import { closeServer } from "@plant-store/test-support/close-server";
import { listenOnLoopback } from "@plant-store/test-support/loopback-server";

/**
 * A real JWKS endpoint on 127.0.0.1: serves `{ keys }` at /jwks.json, counts its hits, and rotates
 * keys when told, like an identity provider does. `latencyMs` holds each answer that long, as a distant provider
 * does, so fetches that overlap are seen overlapping. Closed when the test (or file) ends.
 */
export async function startJwksServer(initialKeys: object[], { latencyMs = 0 }: { latencyMs?: number } = {}) {
  let keys = initialKeys;
  let hits = 0;
  let inFlight = 0;
  let mostInFlight = 0;
  const server = createServer((req, res) => {
    if (req.url !== "/jwks.json") {
      res.writeHead(404).end();
      return;
    }
    hits += 1;
    inFlight += 1;
    mostInFlight = Math.max(mostInFlight, inFlight);
    const answer = () => {
      inFlight -= 1;
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ keys }));
    };
    if (latencyMs > 0) setTimeout(answer, latencyMs);
    else answer();
  });
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}/jwks.json`,
    /** How many times the key set was fetched. */
    hits: () => hits,
    /** The most fetches that were being answered at once. */
    mostInFlight: () => mostInFlight,
    /** Publishes a new key set (key rotation). */
    rotate(next: object[]) {
      keys = next;
    },
    /** Stops it before the test ends (an identity provider going down). */
    close: () => closeServer(server),
  };
}

export type JwksServer = Awaited<ReturnType<typeof startJwksServer>>;
