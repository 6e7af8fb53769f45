import type { Express, Response } from "express";

/**
 * `res.json(body)` without Express's general `res.send` for the answers an API sends most: a body to a request
 * other than GET or HEAD, with no Content-Type, Transfer-Encoding, JSON or ETag setting of its own. For those,
 * Express's json() + send() end in exactly these two headers and this body (the JSON text, its UTF-8 byte
 * length); getting there costs them a MIME lookup, a Content-Type parse and format, several header reads and
 * a freshness check. Everything else (GET and HEAD, 204/205/304, a Content-Type already set, json spaces or
 * replacer, ETags on) goes to Express's own json().
 *
 * Installed on the app's response prototype (`app.response`, Express's documented place for extending res).
 * Both builds loaded at once, 8 rounds, Express's own json() against this: 1.048x (0.881-1.107) the server CPU per
 * POST /plants on Node 24.21.0, 1.091x (1.078-1.119) on Node 26.10.0 (docs/architecture.md).
 * test/runtime-internals/json-response-fast-path.test.ts sends the same answers through both paths and
 * fails if an Express release changes what send() puts on the wire for them.
 */
export function jsonResponseFastPath(app: Express): void {
  const expressJson = app.response.json;
  app.response.json = function json(this: Response, body: unknown) {
    const method = this.req.method;
    const status = this.statusCode;
    const settings = this.app.settings as Record<string, unknown>;
    const plain =
      method !== "GET" &&
      method !== "HEAD" &&
      status !== 204 &&
      status !== 205 &&
      status !== 304 &&
      this.getHeader("content-type") === undefined &&
      this.getHeader("transfer-encoding") === undefined &&
      !settings["json replacer"] &&
      !settings["json spaces"] &&
      !settings["json escape"] &&
      typeof settings["etag fn"] !== "function";
    const text = plain ? JSON.stringify(body) : undefined;
    if (text === undefined) return expressJson.call(this, body);
    this.setHeader("Content-Type", "application/json; charset=utf-8");
    this.setHeader("Content-Length", String(Buffer.byteLength(text)));
    this.end(text, "utf8");
    return this;
  };
}
