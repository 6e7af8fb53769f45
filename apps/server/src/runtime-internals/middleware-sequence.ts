import type { RequestHandler } from "express";

/**
 * The given middleware run in order as one Express layer. Express matches, wraps and steps through every
 * layer it is given, which for small middleware that runs on every request costs more than the middleware
 * itself (measured A/B under wrk; see docs/benchmarks.md). Each must call next() once, synchronously or
 * later; an error skips the rest and goes on to Express's error handling, as it would between layers.
 */
export function middlewareSequence(handlers: readonly RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    let index = 0;
    const step = (error?: unknown): void => {
      if (error !== undefined && error !== null) {
        next(error);
        return;
      }
      const handler = handlers[index++];
      if (handler === undefined) next();
      else handler(req, res, step);
    };
    step();
  };
}
