import { once } from "node:events";
import { createServer, request as httpRequest, type IncomingMessage } from "node:http";
import express, { type RequestHandler } from "express";
import { describe, expect, it } from "vitest";
import { securityHeaders } from "../../src/edge/security-headers.js";
import { headersInHead } from "../../src/runtime-internals/headers-in-head.js";
import { listenOnLoopback } from "@plant-store/test-support/loopback-server";

// The trick in src/runtime-internals/headers-in-head.ts: helmet's headers recorded once and written into every
// response head after the status line. Each answer below goes through helmet per request in one app and through
// the head in the other, over real HTTP; if a Node release stops writing heads through _storeHeader, or a helmet
// release sends headers that differ per request, these fail.

/** Every route answers the way one part of the server does: res.json, res.end, res.send, writeHead. */
function routes(app: express.Express): express.Express {
  return app
    .post("/json", (_req, res) => {
      res.status(409).json({ error: 40901, message: "exists" });
    })
    .get("/end", (_req, res) => {
      res.end();
    })
    .get("/send", (_req, res) => {
      res.set("Cache-Control", "no-store").send("<p>text</p>");
    })
    .get("/write-head", (_req, res) => {
      res.writeHead(204, { "X-Own": "1" }).end();
    })
    .get("/frame-set", (_req, res) => {
      res.set("X-Frame-Options", "DENY").end();
    })
    .get("/frame-in-write-head", (_req, res) => {
      res.writeHead(200, { "x-frame-options": "DENY" }).end();
    })
    .get("/frame-in-write-head-array", (_req, res) => {
      res.writeHead(200, ["X-Frame-Options", "DENY"]).end();
    })
    .get("/frame-in-write-head-pairs", (_req, res) => {
      res.writeHead(200, [["X-Frame-Options", "DENY"]] as unknown as string[]).end();
    });
}

/** The response's header lines as sent, lower-cased names, sorted; the per-connection and per-moment ones left out. */
function headerLines(response: IncomingMessage): string[] {
  const lines: string[] = [];
  for (let i = 0; i < response.rawHeaders.length; i += 2) {
    const name = response.rawHeaders[i]!.toLowerCase();
    if (!["date", "connection", "keep-alive"].includes(name)) lines.push(`${name}: ${response.rawHeaders[i + 1]}`);
  }
  return lines.sort();
}

describe("headersInHead: a header-only middleware's headers written with each response's head", () => {
  async function listen(app: express.Express): Promise<string> {
    return `http://127.0.0.1:${await listenOnLoopback(createServer(app))}`;
  }

  async function send(base: string, method: string, path: string): Promise<{ status: number; lines: string[] }> {
    const req = httpRequest(`${base}${path}`, { method, headers: { Connection: "close" } });
    req.end();
    const [response] = (await once(req, "response")) as [IncomingMessage];
    response.resume();
    await once(response, "end");
    return { status: response.statusCode!, lines: headerLines(response) };
  }

  it("sends exactly what helmet per request sends, each header once, for every way an answer is written", async () => {
    // x-powered-by stays on in both, so helmet's removal of it is checked too.
    const perRequest = await listen(routes(express().use(securityHeaders())));
    const inHead = express();
    headersInHead(inHead, securityHeaders());
    const written = await listen(routes(inHead));

    const requests: [string, string][] = [
      ["POST", "/json"],
      ["GET", "/end"],
      ["GET", "/send"],
      ["HEAD", "/send"],
      ["GET", "/write-head"],
      ["GET", "/nowhere"],
    ];
    for (const [method, path] of requests) {
      const expected = await send(perRequest, method, path);
      const actual = await send(written, method, path);
      expect(actual, `${method} ${path}`).toEqual(expected);
      expect(actual.lines, `${method} ${path}`).toContain("x-content-type-options: nosniff");
      expect(
        actual.lines.some((line) => line.startsWith("x-powered-by")),
        `${method} ${path}`,
      ).toBe(false);
    }
  });

  it("sends a header the answer sets itself instead of the recorded one, however it was set", async () => {
    // No X-Powered-By: writeHead's headers then reach the head without any header set before them.
    const app = express().disable("x-powered-by");
    headersInHead(app, securityHeaders());
    const base = await listen(routes(app));

    for (const path of [
      "/frame-set",
      "/frame-in-write-head",
      "/frame-in-write-head-array",
      "/frame-in-write-head-pairs",
    ]) {
      const { lines } = await send(base, "GET", path);
      expect(
        lines.filter((line) => line.startsWith("x-frame-options:")),
        path,
      ).toEqual(["x-frame-options: DENY"]);
      expect(lines, path).toContain("x-content-type-options: nosniff");
    }
  });

  it("refuses, at start-up, a middleware whose headers cannot be written once for all", () => {
    const later: RequestHandler = (_req, _res, next) => {
      setImmediate(next);
    };
    const twoValues: RequestHandler = (_req, res, next) => {
      res.setHeader("X-Twice", ["a", "b"]);
      next();
    };
    const failing: RequestHandler = (_req, _res, next) => {
      next(new Error("no headers today"));
    };
    expect(() => headersInHead(express(), later)).toThrow("did not call next() synchronously");
    expect(() => headersInHead(express(), twoValues)).toThrow("x-twice has more than one value");
    expect(() => headersInHead(express(), failing)).toThrow("no headers today");
  });
});
