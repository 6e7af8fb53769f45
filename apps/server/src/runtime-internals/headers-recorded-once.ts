import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import type { RequestHandler } from "express";

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
 */
export function headersRecordedOnce(middleware: RequestHandler): RequestHandler {
  const response = new ServerResponse(new IncomingMessage(new Socket()));
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
  const names = response.getHeaderNames().map((name) => spelled.get(name) ?? name);
  const values = names.map((name) => response.getHeader(name) as string | string[]);
  const removedNames = [...removed].filter((name) => response.getHeader(name) === undefined);

  return (_req, res, next) => {
    for (const name of removedNames) res.removeHeader(name);
    for (let i = 0; i < names.length; i++) res.setHeader(names[i]!, values[i]!);
    next();
  };
}
