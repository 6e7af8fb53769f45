import { IncomingMessage, type ServerOptions, ServerResponse } from "node:http";
import type { Express } from "express";

/**
 * A constructor whose objects have `prototype` itself as their prototype and are initialised by `base`.
 * node:http's IncomingMessage and ServerResponse are ES5-style constructors that initialise an existing
 * `this` (they are called this way by Node's own subclasses), so this is plain prototypal inheritance;
 * test/runtime-internals/express-prototypes.test.ts fails if a Node or Express release changes that.
 * (A class's prototype cannot be replaced, and `Reflect.construct` with a foreign new.target measured
 * slower than the swap it replaces, likely V8's slow allocation path for such a new.target.)
 */
function constructingWith(base: (...args: never[]) => unknown, prototype: object): unknown {
  function Construct(this: object, ...args: never[]) {
    base.apply(this, args);
  }
  Construct.prototype = prototype;
  return Construct;
}

/**
 * Whether the swap below pays on a Node of this version. On Node 20 (V8 11.3) Express 5's per-request
 * `Object.setPrototypeOf` deoptimises the code that later touches the request and response, and avoiding it
 * halves the CPU per request (figures below). On Node 24 (V8 13.6) that swap no longer costs much, and the
 * objects built through `constructingWith` are the slow ones: the server without the trick used 0.84x
 * (0.77-0.87) the CPU per POST /plants of the server with it (both loaded at once, 8 rounds, 24.18.1).
 * So it is used on Node 20 only (the engines field allows 20 and 24).
 */
export function expressPrototypesPay(nodeVersion: string = process.versions.node): boolean {
  return Number(nodeVersion.split(".")[0]) <= 20;
}

/**
 * node:http options under which `app`'s requests and responses are born with Express's prototypes
 * (`app.request`, `app.response`), where that pays (expressPrototypesPay); none elsewhere. Express's own
 * `app.listen` lets node:http build plain IncomingMessage/ServerResponse objects and then swaps their
 * prototypes with `Object.setPrototypeOf` in `app.handle`: a V8 map transition per object per request, and
 * every later access to them runs in code that has seen their shape change. Fresh paired A/B on Node 20
 * (5 alternating rounds of 10,000 POST /plants, server CPU from /proc, info logs to a file): 122 us
 * (103-137) of CPU per request with it, 231 us (211-236) without; paired difference 108 us (90-114), far
 * beyond the run-to-run noise.
 * Created with the right prototype, Express's swap sets the prototype they already have (a no-op) and
 * the API Express offers is unchanged: same objects, same methods, same prototype chain.
 */
export function expressPrototypes(
  app: Express,
  nodeVersion: string = process.versions.node,
): Pick<ServerOptions, "IncomingMessage" | "ServerResponse"> {
  if (!expressPrototypesPay(nodeVersion)) return {};
  return {
    IncomingMessage: constructingWith(IncomingMessage as never, app.request) as typeof IncomingMessage,
    ServerResponse: constructingWith(ServerResponse as never, app.response) as typeof ServerResponse,
  };
}
