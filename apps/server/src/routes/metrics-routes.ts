import { Router } from "express";
import type { Registry } from "prom-client";

/** GET /metrics in Prometheus' text format, on the API port or on the separate metrics port. */
export function metricsRoutes(registry: Registry): Router {
  const router = Router();
  router.get("/metrics", async (_req, res) => {
    const body = await registry.metrics();
    res.set("Content-Type", registry.contentType).set("Cache-Control", "no-store").send(body);
  });
  return router;
}
