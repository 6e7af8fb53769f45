import type { Server } from "node:http";
import { setTimeout as delay } from "node:timers/promises";
import type { Logger } from "../logger.js";
import type { Lifecycle } from "../ops/lifecycle.js";
import { stopAccepting } from "../runtime-internals/stop-accepting.js";
import type { PlantStore } from "../store/plant-store.js";

export interface ShutdownDeps {
  /** The API server: drained. None when the app was never served (in-process tests). */
  server?: Server;
  /** Servers with nothing worth draining (the metrics port): closed at once after the API server. */
  auxiliaryServers: Server[];
  store: PlantStore;
  lifecycle: Lifecycle;
  logger: Logger;
  /** How long to keep accepting requests after the signal while GET /readyz answers 503. */
  delayMs: number;
  /** How long open connections may stay once the server stops accepting, before they are closed. */
  timeoutMs: number;
  /** When tracing: its last spans are exported within what is left of timeoutMs. */
  tracing?: { shutdown(timeoutMs: number): Promise<void> } | undefined;
}

/**
 * The shutdown sequence, run once however many signals arrive: mark not-ready (answers now close their
 * connection), keep serving for delayMs so load balancers notice, stop accepting, wait for every open
 * connection to close after its last answer or by its keep-alive timeout (at most timeoutMs, then close
 * what is left), then close the store. Resolves when everything is closed; the caller exits.
 * See docs/graceful-shutdown.md.
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

  logger.info("shutting down: no longer accepting connections; open ones close after their next answer or keep-alive timeout");
  const timeoutAt = Date.now() + deps.timeoutMs;
  if (server) {
    const drained = stopAccepting(server);
    const deadline = setTimeout(() => {
      logger.warn("shutdown timeout reached: closing the connections still open, with their requests in flight");
      server.closeAllConnections();
    }, deps.timeoutMs);
    await drained;
    clearTimeout(deadline);
  }

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
  await deps.tracing?.shutdown(Math.max(0, timeoutAt - Date.now()));
  logger.info("stopped");
}
