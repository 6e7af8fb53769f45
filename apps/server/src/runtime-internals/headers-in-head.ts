import { Socket } from "node:net";
import type { Express, RequestHandler } from "express";
import { IncomingMessage, ServerResponse } from "./node-http.js";

/** node:http's private step that writes a response's head: the status line, then each header it holds. */
type StoreHeader = (this: ServerResponse, firstLine: string, headers: unknown) => unknown;

interface RecordedHeaders {
  /** Name and value as the middleware set them, in its order. */
  headers: [name: string, value: string][];
  /** Lower-cased names of the headers it removed. */
  removed: string[];
}

/**
 * A header-only middleware (one that sets and removes the same response headers whatever the request, and calls
 * next() synchronously) run once on a real node:http response, which validates every name and value it sets.
 */
function recordHeaders(middleware: RequestHandler): RecordedHeaders {
  const response = new ServerResponse(new IncomingMessage(new Socket()));
  const spelled = new Map<string, string>();
  const removed = new Set<string>();
  const setHeader = response.setHeader.bind(response);
  const removeHeader = response.removeHeader.bind(response);
  response.setHeader = (name: string, value: number | string | readonly string[]) => {
    spelled.set(name.toLowerCase(), name);
    return setHeader(name, value);
  };
  response.removeHeader = (name: string) => {
    removed.add(name.toLowerCase());
    removeHeader(name);
  };
  let finished = false;
  middleware(response.req as never, response as never, (error?: unknown) => {
    if (error) throw error;
    finished = true;
  });
  // Fail at start-up, not by sending responses without the headers.
  if (!finished) throw new Error("the middleware did not call next() synchronously: its headers cannot be recorded");
  const headers = response.getHeaderNames().map((key): [string, string] => {
    const value = response.getHeader(key);
    if (typeof value !== "string" && typeof value !== "number") {
      throw new Error(`header ${key} has more than one value: it cannot be written into the head once`);
    }
    return [spelled.get(key) ?? key, String(value)];
  });
  return { headers, removed: [...removed].filter((name) => !response.hasHeader(name)) };
}

/** Header lines as node:http writes them into a head. */
function headerLines(headers: [string, string][]): string {
  return headers.map(([name, value]) => `${name}: ${value}\r\n`).join("");
}

/** Lower-cased names of the headers a response sends of its own: the ones it set, or the ones given to writeHead. */
function ownHeaderNames(res: ServerResponse, headers: unknown): string[] {
  const names = res.getHeaderNames();
  // No header set: node:http hands _storeHeader what writeHead was given (an object, a flat array or none).
  if (names.length > 0 || headers === null || typeof headers !== "object") return names;
  if (!Array.isArray(headers)) return Object.keys(headers).map((name) => name.toLowerCase());
  const pairs = headers.length > 0 && Array.isArray(headers[0]) ? (headers as [string, unknown][]) : undefined;
  return pairs
    ? pairs.map(([name]) => name.toLowerCase())
    : headers.filter((_, index) => index % 2 === 0).map((name) => String(name).toLowerCase());
}

/**
 * A header-only middleware's headers, recorded once at start-up, written into every response head of `app` right
 * after the status line, as text: node:http never holds them as headers of the response.
 *
 * For helmet: with the server's configuration its twelve headers are the same for every response, and sending
 * them cost 13–16% of the server's CPU per POST /plants (the build without them, both loaded at once). On bare
 * node:http the same headers set with setHeader cost 1.17–1.29x a response without them, and 0.95–1.05x written
 * as text with the head (measured by hand, two such servers loaded at once): what costs is node:http handling a dozen more headers per
 * response, not their bytes. An earlier form of this trick replayed them into node:http's header table and saved
 * under 3%. This one, against helmet per request: see docs/architecture.md.
 *
 * A header the response sets itself (setHeader, res.set, or writeHead's headers) is sent instead of the recorded
 * one; one the middleware removed is removed from every response that set it, as the middleware would. It relies on
 * node:http's ServerResponse writing its head through `_storeHeader(firstLine, headers)`;
 * test/runtime-internals/headers-in-head.test.ts fails if a Node release stops doing so, or if a helmet release
 * starts sending headers that differ per request.
 */
export function headersInHead(app: Express, middleware: RequestHandler): void {
  const { headers, removed } = recordHeaders(middleware);
  const recordedNames = new Set(headers.map(([name]) => name.toLowerCase()));
  const lines = headerLines(headers);
  const response = app.response as unknown as { _storeHeader?: StoreHeader };
  const storeHeader = response._storeHeader;
  if (typeof storeHeader !== "function") {
    throw new Error(
      "node:http's ServerResponse has no _storeHeader(firstLine, headers): headers-in-head.ts must change",
    );
  }
  response._storeHeader = function (this: ServerResponse, firstLine: string, ownHeaders: unknown) {
    for (const name of removed) if (this.hasHeader(name)) this.removeHeader(name);
    const own = ownHeaderNames(this, ownHeaders);
    const replaced = own.some((name) => recordedNames.has(name));
    const written = replaced ? headerLines(headers.filter(([name]) => !own.includes(name.toLowerCase()))) : lines;
    return storeHeader.call(this, firstLine + written, ownHeaders);
  };
}
