import { IncomingMessage, type Server, ServerResponse, createServer } from "node:http";
import type { Express } from "express";

/**
 * A constructor that builds what `base` builds, but with `prototype` as the new object's prototype.
 * `Reflect.construct` with this function as new.target runs the base constructor on an object created
 * from `Construct.prototype`, which is set to `prototype` itself (a class's prototype cannot be replaced).
 */
function constructingWith(base: new (...args: never[]) => object, prototype: object): unknown {
  function Construct(this: unknown, ...args: unknown[]) {
    return Reflect.construct(base, args, Construct);
  }
  Construct.prototype = prototype;
  return Construct;
}

/**
 * An HTTP server for `app` whose requests and responses are born with Express's prototypes
 * (`app.request`, `app.response`). Express's own `app.listen` lets node:http build plain
 * IncomingMessage/ServerResponse objects and then swaps their prototypes with `Object.setPrototypeOf`
 * in `app.handle`, a V8 map transition per object per request that deoptimises every later access.
 * Created with the right prototype, Express's swap sets the prototype they already have (a no-op) and
 * the API Express offers is unchanged: same objects, same methods, same prototype chain.
 */
export function createHttpServer(app: Express): Server {
  return createServer(
    {
      IncomingMessage: constructingWith(IncomingMessage, app.request) as typeof IncomingMessage,
      ServerResponse: constructingWith(ServerResponse, app.response) as typeof ServerResponse,
    },
    app,
  );
}
