import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  createFakeBehaviour,
  type FakeBehaviour,
  type FakeControls,
  type FakeOptions,
  type FakeResponse,
} from "./fake-behaviour.js";
import { readBody } from "./read-body.js";

/** How to start the fake server. */
export interface FakePlantStoreOptions extends FakeOptions {
  /** The port on 127.0.0.1; default 0 (a free one). */
  port?: number;
}

/** A running fake Plant Store. */
export interface FakePlantStore extends FakeControls {
  /** The base URL to give the client, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Stops the server, dropping open connections and pending late answers. */
  close(): Promise<void>;
}

function send(res: ServerResponse, response: FakeResponse): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(response.status, { ...response.headers, "Content-Length": String(Buffer.byteLength(response.body)) });
  res.end(response.body);
}

async function serve(behaviour: FakeBehaviour, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers))
    headers[name] = Array.isArray(value) ? value.join(", ") : value;
  const outcome = await behaviour.answer({
    method: req.method ?? "GET",
    target: req.url ?? "/",
    headers,
    readBody: (limitBytes) => readBody(req, limitBytes),
  });
  if ("response" in outcome) send(res, outcome.response);
  else if ("disconnect" in outcome) req.socket.destroy();
}

/**
 * Starts the fake Plant Store as an HTTP server on 127.0.0.1 (Node.js): the fake's behaviour behind a real
 * socket, for code that takes a base URL rather than a fetch function.
 */
export async function startFakePlantStore(options: FakePlantStoreOptions = {}): Promise<FakePlantStore> {
  const behaviour = createFakeBehaviour(options);
  const server = createServer((req, res) => {
    serve(behaviour, req, res).catch(() => req.socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    plants: behaviour.plants,
    failNext: behaviour.failNext,
    reset: behaviour.reset,
    close: async () => {
      behaviour.dropLateAnswers();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
