import type { Server } from "node:http";
import { setTimeout as delay } from "node:timers/promises";
import type { Logger } from "../logger.js";
import type { Lifecycle } from "../process-state/lifecycle.js";
import { stopAccepting } from "../runtime-internals/stop-accepting.js";
import { closeMetricsServer } from "./metrics-server.js";
import type { PlantStore } from "../store/plant-store.js";

export interface ShutdownDeps {
  /** The API server: drained (closed at once when it never listened, as in in-process tests). */
  server: Server;
  /** Servers with nothing worth draining (the metrics port): closed at once after the API server. */
  auxiliaryServers: Server[];
  store: PlantStore;
  lifecycle: Lifecycle;
  logger: Logger;
  /** How long to keep accepting requests after the signal while GET /readyz answers 503. */
  delayMs: number;
  /** How long open connections may stay once the server stops accepting, before they are closed. */
  timeoutMs: number;
  /** Its last spans are exported within what is left of timeoutMs (nothing to do when not tracing). */
  tracing: { shutdown(timeoutMs: number): Promise<void> };
}

/**
 * The shutdown sequence, run once however many signals arrive: mark not-ready (answers now close their
 * connection), keep serving for delayMs so load balancers notice, stop accepting, wait for every open
 * connection to close after its last answer or by its keep-alive timeout (at most timeoutMs, then close
 * what is left), then close the store and tracing. Resolves when everything is closed; the caller exits. After a
 * failed start it skips the delay (no load balancer has sent traffic yet) and logs nothing (the failure's line is the
 * one that matters). Servers that never listened close at once.
 * See docs/graceful-shutdown.md.
 */
export function gracefulShutdown(deps: ShutdownDeps): Shutdown {
  let running: Promise<void> | undefined;
  return (signal, options = {}) => {
    running ??= options.startFailed
      ? run({ ...deps, logger: silent(deps.logger) }, signal, 0)
      : run(deps, signal, deps.delayMs);
    return running;
  };
}

/** Runs the sequence once, however often called: on a signal, or to close what a failed start had opened. */
export type Shutdown = (signal: string, options?: { startFailed?: boolean }) => Promise<void>;

function silent(logger: Logger): Logger {
  const quiet = logger.child({});
  quiet.level = "silent";
  return quiet;
}

async function run(deps: ShutdownDeps, signal: string, delayMs: number): Promise<void> {
  const { server, logger } = deps;
  deps.lifecycle.beginShutdown();
  logger.info({ signal, delayMs, timeoutMs: deps.timeoutMs }, "shutting down: readiness is now 503");
  if (delayMs > 0) await delay(delayMs);

  logger.info(
    "shutting down: no longer accepting connections; open ones close after their next answer or keep-alive timeout",
  );
  const timeoutAt = Date.now() + deps.timeoutMs;
  const drained = stopAccepting(server);
  const deadline = setTimeout(() => {
    logger.warn("shutdown timeout reached: closing the connections still open, with their requests in flight");
    server.closeAllConnections();
  }, deps.timeoutMs);
  await drained;
  clearTimeout(deadline);

  await Promise.all(deps.auxiliaryServers.map(closeMetricsServer));
  await deps.store.close();
  await deps.tracing.shutdown(Math.max(0, timeoutAt - Date.now()));
  logger.info("stopped");
}
