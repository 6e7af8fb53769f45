import type { ServerOptions } from "node:http";
import type { Express } from "express";
import { IncomingMessage, ServerResponse } from "./node-http.js";

/**
 * node:http options under which `app`'s requests and responses are born with Express's prototypes.
 * Express's own `app.listen` lets node:http build plain IncomingMessage/ServerResponse objects and then swaps
 * their prototypes with `Object.setPrototypeOf` in `app.handle`: a V8 map transition per object per request,
 * and every later access to them runs in code that has seen their shape change. On Node 20 (V8 11.3) that
 * triples the CPU per POST /plants: the server without this used 2.99x (2.96-3.08) the CPU per request of
 * the server with it (4 rounds, both loaded at once, server CPU from /proc, info logs to a file).
 *
 * The objects are built by subclasses of node:http's constructors whose prototypes are put in the place of
 * `app.request` / `app.response` (chained to them, so the methods Express offers are unchanged), and Express's
 * swap then sets the prototype they already have: a no-op.
 *
 * Subclasses, not plain functions that apply the base constructor (this file's previous form): V8 sizes a
 * subclass's objects from its base constructor, as it sizes node:http's own. A plain function's objects got
 * almost no in-object slots, node:http's symbol-keyed stores then turned every request and response into a
 * dictionary (slow-properties) object; that form lost on Node 24 and most likely caused Node 20's occasional
 * slow process (docs/performance.md). Against that form, on Node 20: 0.840x the CPU per request (0.815-0.858,
 * 6 rounds, both servers under load at once). Node 24 (V8 13.6), where Express's swap costs little, gains too:
 * 0.955x (0.940-0.984, 6 rounds) against node:http's own objects.
 * test/runtime-internals/express-prototypes.test.ts fails if a Node or Express release changes what this relies
 * on, or if the objects lose their fast properties.
 */
export function expressPrototypes(app: Express): Pick<ServerOptions, "IncomingMessage" | "ServerResponse"> {
  class ExpressRequest extends IncomingMessage {}
  class ExpressResponse extends ServerResponse<IncomingMessage> {}
  Object.setPrototypeOf(ExpressRequest.prototype, app.request);
  Object.setPrototypeOf(ExpressResponse.prototype, app.response);
  app.request = ExpressRequest.prototype as Express["request"];
  app.response = ExpressResponse.prototype as Express["response"];
  return { IncomingMessage: ExpressRequest, ServerResponse: ExpressResponse as typeof ServerResponse };
}
