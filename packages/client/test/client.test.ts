import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPlantStoreClient } from "../src/index.js";

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

// A real HTTP peer on loopback that records what the client sent and answers like the server would.
let server: Server;
let baseUrl: string;
let received: Received[];
beforeEach(async () => {
  received = [];
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      res.writeHead(200, { "content-type": "application/json" }).end('{"name":"Fern"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe("createPlantStoreClient", () => {
  it("POSTs the NewPlant as JSON to /plants with the bearer token", async () => {
    const client = createPlantStoreClient({ baseUrl, token: "abc" });
    const result = await client.plants.create({ id: 7, name: "Fern", tag: "green" });
    expect(result).toMatchObject({ status: 200, body: { name: "Fern" } });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ method: "POST", url: "/plants", body: '{"id":7,"name":"Fern","tag":"green"}' });
    expect(received[0]!.headers.authorization).toBe("Bearer abc");
    expect(received[0]!.headers["content-type"]).toBe("application/json");
  });

  it("writes int64 ids digit for digit", async () => {
    const client = createPlantStoreClient({ baseUrl, token: "abc" });
    await client.plants.create({ id: -9223372036854775808n, name: "min" });
    await client.plants.create({ id: 9223372036854775807n, name: "max" });
    expect(received.map((r) => r.body)).toEqual([
      '{"id":-9223372036854775808,"name":"min"}',
      '{"id":9223372036854775807,"name":"max"}',
    ]);
  });

  it("asks getToken for every request", async () => {
    let calls = 0;
    const client = createPlantStoreClient({ baseUrl, getToken: async () => `token-${++calls}` });
    await client.plants.create({ id: 1, name: "a" });
    await client.plants.create({ id: 2, name: "b" });
    expect(received.map((r) => r.headers.authorization)).toEqual(["Bearer token-1", "Bearer token-2"]);
  });

  it("uses an injected fetch", async () => {
    const seen: string[] = [];
    const client = createPlantStoreClient({
      baseUrl,
      token: "abc",
      fetch: (input, init) => {
        seen.push(`${init.method} ${input}`);
        return fetch(input, init);
      },
    });
    await client.plants.create({ id: 1, name: "a" });
    expect(seen).toEqual([`POST ${baseUrl}/plants`]);
  });

  it("passes an AbortSignal through", async () => {
    const client = createPlantStoreClient({ baseUrl, token: "abc" });
    await expect(client.plants.create({ id: 1, name: "a" }, { signal: AbortSignal.abort() })).rejects.toThrow(/abort/i);
  });

  it("needs a token or getToken", () => {
    expect(() => createPlantStoreClient({ baseUrl })).toThrow(/token/);
  });
});
