import { once } from "node:events";
import { createServer, request as httpRequest, type IncomingHttpHeaders, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import express, { type RequestHandler } from "express";
import helmet from "helmet";
import { afterEach, describe, expect, it } from "vitest";
import { helmetAsConfigured, securityHeaders } from "../../src/edge/security-headers.js";
import { findOutgoingHeaderTable, headersRecordedOnce } from "../../src/runtime-internals/headers-recorded-once.js";

// The trick in src/runtime-internals/headers-recorded-once.ts: helmet's headers recorded at start-up and
// replayed into node:http's header table. If a helmet release starts looking at the request (or stops being
// synchronous), or a Node release keeps response headers otherwise, these fail.
let servers: ReturnType<typeof createServer>[] = [];
afterEach(async () => {
  for (const server of servers) server.close();
  servers = [];
});

async function serve(listener: RequestListener): Promise<number> {
  const server = createServer(listener).listen(0, "127.0.0.1");
  servers.push(server);
  await once(server, "listening");
  return (server.address() as AddressInfo).port;
}

/** The response's headers in the order they were sent, as name/value pairs, without the per-response ones. */
async function rawHeaders(port: number, method: string, path: string, headers: IncomingHttpHeaders): Promise<string[][]> {
  const response = await new Promise<import("node:http").IncomingMessage>((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, method, path, headers, agent: false }, resolve);
    req.on("error", reject);
    req.end(method === "POST" ? '{"id":1,"name":"Monstera"}' : undefined);
  });
  response.resume();
  await once(response, "end");
  const pairs: string[][] = [];
  for (let i = 0; i < response.rawHeaders.length; i += 2) pairs.push([response.rawHeaders[i]!, response.rawHeaders[i + 1]!]);
  return pairs.filter(([name]) => !["date", "connection", "keep-alive"].includes(name!.toLowerCase()));
}

function appWith(headers: RequestHandler): express.Express {
  const app = express().set("trust proxy", true).use(headers);
  app.all("/{*path}", (_req, res) => {
    res.status(200).end("ok");
  });
  return app;
}

describe("headersRecordedOnce(helmet(...))", () => {
  it("finds node:http's header table on this Node, so the replay does not fall back to setHeader", () => {
    expect(findOutgoingHeaderTable()).toEqual(expect.any(Symbol));
  });

  const replays: [string, () => RequestHandler][] = [
    ["into the header table", securityHeaders],
    ["by setHeader (where the table is not found)", () => headersRecordedOnce(helmetAsConfigured(), null)],
  ];
  it.each(replays)("sends the headers helmet sends, in its order, whatever the request: replayed %s", async (_, replay) => {
    const helmetPort = await serve(appWith(helmetAsConfigured()));
    const replayPort = await serve(appWith(replay()));
    const requests: [string, string, IncomingHttpHeaders][] = [
      ["GET", "/", { accept: "text/html" }],
      ["POST", "/plants", { "content-type": "application/json", authorization: "Bearer x" }],
      ["GET", "/docs/", { "x-forwarded-proto": "https", "user-agent": "Mozilla/4.0 (compatible; MSIE 8.0; Windows NT 6.1)" }],
      ["OPTIONS", "/plants", { origin: "https://app.example.com", "access-control-request-method": "POST" }],
      ["HEAD", "/healthz?x=1", { "x-forwarded-for": "203.0.113.7" }],
    ];
    for (const [method, path, headers] of requests) {
      const expected = await rawHeaders(helmetPort, method, path, headers);
      expect(expected.length).toBeGreaterThan(10);
      expect(await rawHeaders(replayPort, method, path, headers)).toEqual(expected);
    }
  });

  it("gives each response its own headers: what a handler appends, sets or removes is not on the next one", async () => {
    const app = express().use(securityHeaders());
    app.get("/", (req, res) => {
      if (req.query.change !== undefined) {
        res.appendHeader("Referrer-Policy", "origin");
        res.setHeader("X-Frame-Options", "DENY");
        res.removeHeader("Strict-Transport-Security");
      }
      res.status(200).end("ok");
    });
    const port = await serve(app);
    const changed = new Map((await rawHeaders(port, "GET", "/?change", {})).map(([name, value]) => [name!, value!]));
    expect(changed.get("X-Frame-Options")).toBe("DENY");
    expect(changed.has("Strict-Transport-Security")).toBe(false);
    expect((await rawHeaders(port, "GET", "/?change", {})).filter(([name]) => name === "Referrer-Policy")).toEqual([
      ["Referrer-Policy", "no-referrer"],
      ["Referrer-Policy", "origin"],
    ]);
    const helmetPort = await serve(appWith(helmetAsConfigured()));
    expect(await rawHeaders(port, "GET", "/", {})).toEqual(await rawHeaders(helmetPort, "GET", "/", {}));
  });

  it("replays what the middleware removed", async () => {
    const port = await serve(
      express()
        .enable("x-powered-by")
        .use(headersRecordedOnce(helmet.xPoweredBy()))
        .get("/", (_req, res) => {
          res.end();
        }),
    );
    const headers = await rawHeaders(port, "GET", "/", {});
    expect(headers.map(([name]) => name!.toLowerCase())).not.toContain("x-powered-by");
  });

  it("refuses, at start-up, a middleware that does not call next() synchronously", () => {
    const later: RequestHandler = (_req, _res, next) => {
      setImmediate(next);
    };
    expect(() => headersRecordedOnce(later)).toThrow(/synchronously/);
  });
});
