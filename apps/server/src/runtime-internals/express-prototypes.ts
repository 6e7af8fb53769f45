import type { ServerOptions } from "node:http";
import type { Express } from "express";
import { IncomingMessage, ServerResponse } from "./node-http.js";

/**
 * node:http options under which `app`'s requests and responses are born with Express's prototypes.
 * Express's own `app.listen` lets node:http build plain IncomingMessage/ServerResponse objects and then swaps
 * their prototypes with `Object.setPrototypeOf` in `app.handle`: a V8 map transition per object per request,
 * and every later access to them runs in code that has seen their shape change. Both builds loaded at once,
 * 8 rounds, the server without this against the server with it: 1.033x (0.950-1.077) the CPU per request on
 * Node 24.21.0, 1.084x (1.020-1.156) on Node 26.10.0 (docs/architecture.md).
 *
 * The objects are built by subclasses of node:http's constructors whose prototypes are put in the place of
 * `app.request` / `app.response` (chained to them, so the methods Express offers are unchanged), and Express's
 * swap then sets the prototype they already have: a no-op.
 *
 * Subclasses, not plain functions that apply the base constructor (an earlier form): V8 sizes a subclass's
 * objects from its base constructor, as it sizes node:http's own; a plain function's objects got almost no
 * in-object slots, and node:http's symbol-keyed stores then turned every request and response into a
 * dictionary (slow-properties) object, at 1.2x the CPU per request.
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
