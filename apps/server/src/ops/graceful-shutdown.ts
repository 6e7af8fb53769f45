import type { Server } from "node:http";
import { setTimeout as delay } from "node:timers/promises";
import type { Logger } from "../logger.js";
import type { PlantStore } from "../store/plant-store.js";
import type { Lifecycle } from "./lifecycle.js";

export interface ShutdownDeps {
  /** The API server: drained. */
  server: Server;
  /** Servers with nothing worth draining (the metrics port): closed at once after the API server. */
  auxiliaryServers: Server[];
  store: PlantStore;
  lifecycle: Lifecycle;
  logger: Logger;
  /** How long to keep accepting requests after the signal while GET /readyz answers 503. */
  delayMs: number;
  /** How long requests in flight may take once the server stops accepting, before they are cut off. */
  timeoutMs: number;
}

/**
 * The shutdown sequence, run once however many signals arrive: mark not-ready, optionally keep serving
 * for delayMs so load balancers notice, stop accepting, let requests in flight finish (bounded by
 * timeoutMs), then close the store. Resolves when everything is closed; the caller exits.
 */
export function gracefulShutdown(deps: ShutdownDeps): (signal: string) => Promise<void> {
  let running: Promise<void> | undefined;
  return (signal) => {
    running ??= run(deps, signal);
    return running;
  };
}

async function run(deps: ShutdownDeps, signal: string): Promise<void> {
  const { server, logger } = deps;
  deps.lifecycle.beginShutdown();
  logger.info({ signal, delayMs: deps.delayMs, timeoutMs: deps.timeoutMs }, "shutting down: readiness is now 503");
  if (deps.delayMs > 0) await delay(deps.delayMs);

  logger.info("shutting down: no longer accepting connections, finishing requests in flight");
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // close() only ends connections idle right now; keep reaping those that go idle after their last response.
  const reapIdle = setInterval(() => server.closeIdleConnections(), 100);
  const deadline = setTimeout(() => {
    logger.warn("shutdown timeout reached: closing connections with requests still in flight");
    server.closeAllConnections();
  }, deps.timeoutMs);
  await closed;
  clearInterval(reapIdle);
  clearTimeout(deadline);

  await Promise.all(
    deps.auxiliaryServers.map(
      (aux) =>
        new Promise<void>((resolve) => {
          aux.close(() => resolve());
          aux.closeAllConnections();
        }),
    ),
  );
  await deps.store.close();
  logger.info("stopped");
}
