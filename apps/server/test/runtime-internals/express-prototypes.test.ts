import express from "express";
import { describe, expect, it } from "vitest";
import { IncomingMessage, ServerResponse } from "node:http";
import { createHttpServer } from "../../src/connection/http-server.js";
import { expressPrototypes } from "../../src/runtime-internals/express-prototypes.js";
import { createLogger } from "../../src/logger.js";
import { startServerWithToken } from "../support/server-process.js";
import { type ListeningTestApp, startTestApp } from "../support/test-server.js";
import { listenOnLoopback } from "@plant-store/test-support/loopback-server";

const timeouts = { headersMs: 20_000, requestMs: 60_000, keepAliveMs: 5_000 };

// The trick in src/runtime-internals/express-prototypes.ts: if a Node or Express release changes what it
// relies on (subclassable IncomingMessage/ServerResponse, Express's app.request/app.response, V8 keeping the
// objects' fast properties), these fail.
describe("createHttpServer: requests born with Express's prototypes", () => {
  it("hands Express requests and responses that already have the app's prototypes", async () => {
    const app = express();
    const seen: { request: boolean; response: boolean }[] = [];
    const server = createHttpServer(app, timeouts, createLogger("silent"));
    // Runs before Express's own middleware: these are the objects exactly as node:http built them.
    server.prependListener("request", (req, res) => {
      seen.push({
        request: Object.getPrototypeOf(req) === app.request,
        response: Object.getPrototypeOf(res) === app.response,
      });
    });
    app.get("/hello", (req, res) => {
      res.json({ host: req.hostname, accepts: req.accepts("json") });
    });
    const port = await listenOnLoopback(server);
    const response = await fetch(`http://127.0.0.1:${port}/hello`, {
      headers: { Connection: "close" },
    });

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ host: "127.0.0.1", accepts: "json" });
    expect(seen).toEqual([{ request: true, response: true }]);
  });

  it("keeps Express's request and response methods and node:http's classes in the prototype chain", () => {
    const app = express();
    const expressRequest = app.request;
    const expressResponse = app.response;
    const { IncomingMessage: Request, ServerResponse: Response } = expressPrototypes(app);

    expect(Object.getPrototypeOf(Request!.prototype)).toBe(expressRequest);
    expect(Object.getPrototypeOf(Response!.prototype)).toBe(expressResponse);
    expect([app.request, app.response]).toEqual([Request!.prototype, Response!.prototype]);
    expect(Request!.prototype instanceof IncomingMessage).toBe(true);
    expect(Response!.prototype instanceof ServerResponse).toBe(true);
  });

  describe("serving the Plant Store app", () => {
    let testApp: ListeningTestApp;

    it("POST /plants creates a plant, and a request without a token still gets 401 with its challenge", async () => {
      testApp = await startTestApp({ store: "memory", listen: true });
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

  // What the trick must not cost: objects built by constructors V8 sizes too small drop to dictionary mode
  // (node:http's symbol-keyed stores overflow them), and every property access on them is slower. Asked of
  // V8 inside the built server, on whatever Node runs the test.
  it("leaves the built server's requests and responses with fast properties", async () => {
    const server = await startServerWithToken(
      {
        JWT_SECRET: "fast-properties-test-secret-of-32-characters",
        // fetch then keeps no idle connection for the stop to wait out.
        KEEP_ALIVE_TIMEOUT_MS: "1000",
        NODE_OPTIONS: `--import ${new URL("../support/report-fast-properties.mjs", import.meta.url).href}`,
      },
      "fast-properties-test",
    );
    const headers = { authorization: `Bearer ${server.token}`, "content-type": "application/json" };
    const statuses: number[] = [];
    for (let id = 1; id <= 3; id++) {
      const response = await fetch(`${server.baseUrl}/plants`, {
        method: "POST",
        headers,
        body: JSON.stringify({ id, name: "Monstera" }),
      });
      statuses.push(response.status);
    }
    const refused = await fetch(`${server.baseUrl}/plants`, { method: "POST", body: "{}" });
    await server.stop();

    expect([...statuses, refused.status]).toEqual([200, 200, 200, 401]);
    const reports = server.stderr().match(/^fast properties: .*$/gm);
    expect(reports).toEqual(Array(4).fill("fast properties: request true, response true"));
  });
});
