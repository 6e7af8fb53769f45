import { Socket } from "node:net";
import type { RequestHandler } from "express";
import { IncomingMessage, ServerResponse } from "./node-http.js";

/** What node:http's header table holds per header: the name as spelled and the value, under the lower-cased name. */
type HeaderValue = number | string | string[];
type HeaderTable = Record<string, [string, HeaderValue]>;

function newResponse(): ServerResponse {
  return new ServerResponse(new IncomingMessage(new Socket()));
}

/**
 * The symbol under which node:http keeps a response's headers, or null if this Node keeps them otherwise.
 * `setHeader(name, value)` validates both, then stores `[name, value]` under the lower-cased name in that
 * table (created by the first header set), which getHeader, removeHeader, appendHeader and the header block
 * sent all read. Checked on a probe response: a header setHeader stored is found there as described, and one
 * written there directly is reported by getHeader and getHeaderNames.
 */
export function findOutgoingHeaderTable(): symbol | null {
  const probe = newResponse();
  probe.setHeader("X-Probe", "set");
  const symbol = Object.getOwnPropertySymbols(probe).find((candidate) => candidate.description === "kOutHeaders");
  if (symbol === undefined) return null;
  const table = (probe as unknown as Record<symbol, HeaderTable | null>)[symbol];
  const entry = table?.["x-probe"];
  if (!table || !Array.isArray(entry) || entry[0] !== "X-Probe" || entry[1] !== "set") return null;
  table["x-written"] = ["X-Written", "written"];
  if (probe.getHeader("x-written") !== "written" || !probe.getHeaderNames().includes("x-written")) return null;
  return symbol;
}

const outgoingHeaderTable = findOutgoingHeaderTable();

/**
 * A header-only middleware (one that sets and removes the same response headers whatever the request, and
 * calls next() synchronously) run once at start-up on a real node:http response, and replayed per request:
 * each response gets the headers it set, in its order, and loses the ones it removed.
 *
 * For helmet: with the server's configuration its headers are the same for every response, yet helmet
 * rebuilds them per request (twelve middlewares, the CSP string assembled from its directives). Paired A/B
 * (both builds loaded at once, 6 rounds): 0.973x the server CPU per POST /plants. It relies on helmet not
 * looking at the request; test/runtime-internals/headers-recorded-once.test.ts sends varied requests
 * through helmet itself and through the replay and fails if a helmet release makes them differ.
 *
 * The replay writes the recorded headers into node:http's header table (`headerTable`, found by
 * findOutgoingHeaderTable) instead of calling setHeader twelve times: setHeader validated each name and value
 * once, at start-up, on the recording response, and validating the same constants again on every response
 * was most of what they still cost. Paired A/B (both builds loaded at once, 16 rounds): the build replaying
 * with setHeader used 1.050x (1.027-1.080) the server CPU per POST /plants on Node 20.20.2, 1.047x
 * (1.011-1.090) on Node 24.18.1. Where the table is not found (or null is passed) the replay calls setHeader:
 * the same headers, slower, and the test fails on that Node.
 */
export function headersRecordedOnce(
  middleware: RequestHandler,
  headerTable: symbol | null = outgoingHeaderTable,
): RequestHandler {
  const response = newResponse();
  // Header names as the middleware spelled them (node:http keeps them lower-cased), and what it removed.
  const spelled = new Map<string, string>();
  const removed = new Set<string>();
  const setHeader = response.setHeader.bind(response);
  const removeHeader = response.removeHeader.bind(response);
  response.setHeader = (name: string, value: number | string | readonly string[]) => {
    spelled.set(name.toLowerCase(), name);
    return setHeader(name, value);
  };
  response.removeHeader = (name: string) => {
    removed.add(name);
    removeHeader(name);
  };
  let finished = false;
  middleware(response.req as never, response as never, (error?: unknown) => {
    if (error) throw error;
    finished = true;
  });
  // Fail at start-up, not by sending responses without the headers.
  if (!finished) throw new Error("the middleware did not call next() synchronously: its headers cannot be recorded");
  const keys = response.getHeaderNames();
  const names = keys.map((key) => spelled.get(key) ?? key);
  const values = keys.map((key) => response.getHeader(key) as HeaderValue);
  const removedNames = [...removed].filter((name) => response.getHeader(name) === undefined);

  return (_req, res, next) => {
    for (const name of removedNames) res.removeHeader(name);
    const table = headerTable === null || res.headersSent ? undefined : tableOf(res, headerTable, names[0], values[0]);
    if (table === undefined) {
      for (let i = 0; i < names.length; i++) res.setHeader(names[i]!, values[i]!);
    } else {
      // A fresh entry (and array value) per response: appendHeader changes the entry it finds in place.
      for (let i = 0; i < names.length; i++) {
        const value = values[i]!;
        table[keys[i]!] = [names[i]!, Array.isArray(value) ? [...value] : value];
      }
    }
    next();
  };
}

/** The response's header table, made by setting its first header with setHeader if it has none yet. */
function tableOf(
  res: ServerResponse,
  headerTable: symbol,
  firstName: string | undefined,
  firstValue: HeaderValue | undefined,
): HeaderTable | undefined {
  const slot = res as unknown as Record<symbol, HeaderTable | null>;
  if (slot[headerTable] === null && firstName !== undefined) res.setHeader(firstName, firstValue!);
  return slot[headerTable] ?? undefined;
}
