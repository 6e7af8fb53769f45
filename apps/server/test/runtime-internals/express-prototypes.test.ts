import type { AddressInfo } from "node:net";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { createServer } from "node:http";
import { createHttpServer } from "../../src/connection/http-server.js";
import { expressPrototypes, expressPrototypesPay } from "../../src/runtime-internals/express-prototypes.js";
import { createLogger } from "../../src/logger.js";
import { startTestApp, type TestApp } from "../support/test-server.js";

const timeouts = { HEADERS_TIMEOUT_MS: 20_000, REQUEST_TIMEOUT_MS: 60_000, KEEP_ALIVE_TIMEOUT_MS: 5_000 };

// The trick in src/runtime-internals/express-prototypes.ts: if a Node or Express release changes what it
// relies on (ES5-callable IncomingMessage/ServerResponse, Express's app.request/app.response), these fail.
describe("createHttpServer: requests born with Express's prototypes", () => {
  let closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers) await close();
    closers = [];
  });

  // The trick itself, forced on whatever Node runs the test: what it relies on is checked on 24 as well.
  it("hands Express requests and responses that already have the app's prototypes", async () => {
    const app = express();
    const seen: { request: boolean; response: boolean }[] = [];
    // Runs before Express's own middleware: these are the objects exactly as node:http built them.
    const server = createServer(expressPrototypes(app, "20.20.2"), app);
    server.prependListener("request", (req, res) => {
      seen.push({ request: Object.getPrototypeOf(req) === app.request, response: Object.getPrototypeOf(res) === app.response });
    });
    app.get("/hello", (req, res) => {
      res.json({ host: req.hostname, accepts: req.accepts("json") });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hello`, {
      headers: { Connection: "close" },
    });

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ host: "127.0.0.1", accepts: "json" });
    expect(seen).toEqual([{ request: true, response: true }]);
  });

  it("is used on Node 20 only, where it pays; on Node 24 node:http builds its own objects", async () => {
    expect([expressPrototypesPay("20.19.0"), expressPrototypesPay("20.20.2"), expressPrototypesPay("24.18.1")]).toEqual([
      true,
      true,
      false,
    ]);
    expect(Object.keys(expressPrototypes(express(), "24.18.1"))).toEqual([]);

    const app = express();
    const server = createHttpServer(app, timeouts, createLogger("silent"));
    let bornWithAppPrototype: boolean | undefined;
    server.prependListener("request", (req) => {
      bornWithAppPrototype = Object.getPrototypeOf(req) === app.request;
    });
    app.get("/", (_req, res) => {
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { headers: { Connection: "close" } });

    expect(bornWithAppPrototype).toBe(expressPrototypesPay());
  });

  describe("serving the Plant Store app", () => {
    let testApp: TestApp;
    afterEach(async () => testApp.close());

    it("POST /plants creates a plant, and a request without a token still gets 401 with its challenge", async () => {
      testApp = await startTestApp();
      const baseUrl = testApp.url;
      const created = await fetch(`${baseUrl}/plants`, {
        method: "POST",
        headers: { ...testApp.auth, "Content-Type": "application/json" },
        body: '{"id": 9007199254740993, "name": "Monstera", "tag": "tropical"}',
      });
      const refused = await fetch(`${baseUrl}/plants`, { method: "POST", body: "{}" });

      expect(created.status).toBe(200);
      expect(await created.json()).toEqual({ name: "Monstera", tag: "tropical" });
      expect(testApp.rows()).toEqual([{ id: 9007199254740993n, name: "Monstera", tag: "tropical" }]);
      expect(refused.status).toBe(401);
      expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="plant-store"');
      expect(await refused.json()).toMatchObject({ error: 40101 });
    });
  });
});
