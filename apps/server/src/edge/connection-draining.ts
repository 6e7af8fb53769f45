import type { RequestHandler } from "express";
import type { Lifecycle } from "../ops/lifecycle.js";

/** Once shutdown has begun, every response asks its client to close the connection and reconnect elsewhere. */
export function connectionDraining(lifecycle: Lifecycle): RequestHandler {
  return (_req, res, next) => {
    if (lifecycle.shuttingDown) res.set("Connection", "close");
    next();
  };
}
