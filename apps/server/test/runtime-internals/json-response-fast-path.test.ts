import { createServer, request as httpRequest, type IncomingMessage } from "node:http";
import express from "express";
import { describe, expect, it } from "vitest";
import { jsonResponseFastPath } from "../../src/runtime-internals/json-response-fast-path.js";
import { listenOnLoopback } from "@plant-store/test-support/loopback-server";

// The trick in src/runtime-internals/json-response-fast-path.ts: res.json for plain API answers without
// Express's send(). Every answer below goes through Express's own res.json in one app and through the fast
// path in the other; if an Express release changes what send() puts on the wire, these fail.
interface Answer {
  method: string;
  status: number;
  body: unknown;
  contentType?: string;
  jsonSpaces?: number;
  /** Whether the fast path answers it itself (else it hands it to Express's json). */
  fast: boolean;
}

const answers: Record<string, Answer> = {
  created: { method: "POST", status: 200, body: { name: "Monstera", tag: "tropical" }, fast: true },
  error: {
    method: "POST",
    status: 400,
    body: { error: 40001, message: "id: must be an integer, got string" },
    fast: true,
  },
  unicode: { method: "PUT", status: 201, body: { name: "Kräuter \u2618 \u{1F331}", quote: '"\\' }, fast: true },
  array: { method: "DELETE", status: 409, body: [1, "two", null, { three: 3 }], fast: true },
  scalars: { method: "PATCH", status: 503, body: null, fast: true },
  string: { method: "POST", status: 200, body: "just text", fast: true },
  presetType: { method: "POST", status: 200, body: { a: 1 }, contentType: "application/problem+json", fast: false },
  get: { method: "GET", status: 200, body: { status: "ok" }, fast: false },
  head: { method: "HEAD", status: 200, body: { status: "ok" }, fast: false },
  noContent: { method: "POST", status: 204, body: { ignored: true }, fast: false },
  resetContent: { method: "POST", status: 205, body: { ignored: true }, fast: false },
  spaces: { method: "POST", status: 200, body: { a: [1, 2] }, jsonSpaces: 2, fast: false },
  undefinedBody: { method: "POST", status: 200, body: undefined, fast: false },
};

function answeringApp(withFastPath: boolean, jsonSpaces: number | undefined, expressCalls: string[]): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  if (jsonSpaces !== undefined) app.set("json spaces", jsonSpaces);
  if (withFastPath) {
    // Counts what the fast path hands on to Express's own json().
    const expressJson = app.response.json;
    app.response.json = function json(this: express.Response, body: unknown) {
      expressCalls.push(this.req.path);
      return expressJson.call(this, body);
    };
    jsonResponseFastPath(app);
  }
  app.all("/:answer", (req, res) => {
    const answer = answers[req.params.answer!]!;
    if (answer.contentType) res.type(answer.contentType);
    res.status(answer.status).json(answer.body);
  });
  return app;
}

const serve = (app: express.Express): Promise<number> => listenOnLoopback(createServer(app));

/** Status, headers in the order sent (without Date and the connection's), and the body's bytes. */
async function wire(port: number, method: string, path: string) {
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    httpRequest({ host: "127.0.0.1", port, method, path, agent: false }, resolve).on("error", reject).end();
  });
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  const headers: string[] = [];
  for (let i = 0; i < response.rawHeaders.length; i += 2) {
    if (!["date", "connection", "keep-alive"].includes(response.rawHeaders[i]!.toLowerCase())) {
      headers.push(`${response.rawHeaders[i]}: ${response.rawHeaders[i + 1]}`);
    }
  }
  return { status: response.statusCode, headers, body: Buffer.concat(chunks).toString("hex") };
}

describe("jsonResponseFastPath", () => {
  it.each(Object.entries(answers))(
    "%s: the same status, headers and bytes as Express's own res.json",
    async (name, answer) => {
      const expressCalls: string[] = [];
      const expressPort = await serve(answeringApp(false, answer.jsonSpaces, []));
      const fastPort = await serve(answeringApp(true, answer.jsonSpaces, expressCalls));

      const expected = await wire(expressPort, answer.method, `/${name}`);
      expect(expected.status).toBe(answer.status);
      expect(await wire(fastPort, answer.method, `/${name}`)).toEqual(expected);
      expect(expressCalls).toEqual(answer.fast ? [] : [`/${name}`]);
    },
  );

  it("throws for a body JSON cannot hold, as Express's res.json does", () => {
    const app = answeringApp(true, undefined, []);
    const res = Object.create(app.response) as express.Response;
    Object.assign(res, { req: { method: "POST" }, statusCode: 200, getHeader: () => undefined });
    expect(() => res.json({ id: 1n })).toThrow(TypeError);
  });
});
