import { ErrorCode } from "@plant-store/contract";
import { Router } from "express";
import { ServiceUnavailableError } from "../http-errors/http-errors.js";
import type { Lifecycle } from "../process-state/lifecycle.js";
import type { PlantStore } from "../store/plant-store.js";
import { StoreNotOpenError } from "../store/waiting-store.js";

/**
 * GET /healthz: the process is alive and serving (restart it only when this fails).
 * GET /readyz: it should get traffic: not shutting down and its store answers; else 503 with an Error body.
 * Both are unauthenticated so load balancers and orchestrators can probe them.
 */
export function healthRoutes(deps: { store: PlantStore; lifecycle: Lifecycle }): Router {
  const router = Router();
  router.use(["/healthz", "/readyz"], (_req, res, next) => {
    res.set("Cache-Control", "no-store");
    next();
  });
  router.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  router.get("/readyz", async (_req, res) => {
    if (deps.lifecycle.shuttingDown)
      throw new ServiceUnavailableError(ErrorCode.ShuttingDown, "the server is shutting down", 1);
    try {
      await deps.store.ping();
    } catch (err) {
      // Still opening at start is a state (each failed attempt is logged once, by the retries); anything else is an
      // outage, whose cause the error handler logs.
      const cause = err instanceof StoreNotOpenError ? undefined : err;
      throw new ServiceUnavailableError(ErrorCode.StoreUnavailable, "the store is unreachable", 1, cause);
    }
    res.json({ status: "ready" });
  });
  return router;
}
