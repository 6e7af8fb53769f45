import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as delay } from "node:timers/promises";
import type { Express } from "express";
import { createApp } from "../app.js";
import { VerifiedTokenCache } from "../auth/verified-token-cache.js";
import type { Config } from "../config.js";
import { createHttpServer } from "../connection/http-server.js";
import type { AdmissionClock } from "../connection/admission-clock.js";
import { createLogger, type Logger } from "../logger.js";
import { Lifecycle } from "../process-state/lifecycle.js";
import { createMetrics, type Metrics } from "../process-state/metrics.js";
import { oneLine } from "../one-line.js";
import { describeDatabaseUrl } from "../store/database-url.js";
import { isTransientOpenError, openStore } from "../store/open-store.js";
import type { PlantStore } from "../store/plant-store.js";
import { WaitingStore, type WaitingState } from "../store/waiting-store.js";
import { loadTracing } from "../tracing/load-tracing.js";
import type { Tracing } from "../tracing/tracing.js";
import { gracefulShutdown } from "./graceful-shutdown.js";
import { createMetricsServer } from "./metrics-server.js";
import { admissionOptions, connectionTimeouts, storeOptions, tracesExport } from "./options-from-config.js";
import { type ListenTarget, listenFailure } from "./start-failure.js";
import { createTokenVerifier } from "./token-verifier-from-config.js";
import { StartFailure } from "../operator-errors.js";

/** Parts a caller supplies instead of those the configuration would make (tests, mostly), and how the store opens. */
export interface PlantStoreOverrides {
  /** Instead of a logger at LOG_LEVEL on stdout (tests capture the lines). */
  logger?: Logger;
  /** Instead of the store DATABASE_URL names (the store conformance suite brings its own). */
  store?: PlantStore;
  /** Instead of a fresh registry (tests read the metrics directly). */
  metrics?: Metrics;
  /** Instead of the process's wall and CPU time as admission control's clock (tests drive overload with it). */
  admissionClock?: AdmissionClock;
  /**
   * Open the store in the background, retrying while the database is unreachable or its migration lock is
   * held, instead of before composing (main.ts: the server listens at once and is ready once the store opens).
   */
  storeInBackground?: boolean;
}

/** How long startPlantStore waits for the first attempt to open the store before it reports listening anyway. */
const FIRST_ATTEMPT_GRACE_MS = 2_000;

/** The whole server, built and listening nowhere: what tests drive with supertest, and what startPlantStore serves. */
export interface ComposedPlantStore {
  app: Express;
  /** The API's HTTP server (admission control, timeouts, connection errors), not listening yet. */
  server: Server;
  /** The GET /metrics server when METRICS_PORT is set, not listening yet. */
  metricsServer: Server | undefined;
  store: PlantStore;
  /** With storeInBackground: the store while it opens (its `state` says how far it got). */
  waitingStore: WaitingStore | undefined;
  metrics: Metrics;
  lifecycle: Lifecycle;
  logger: Logger;
  tracing: Tracing;
  /** Set when no key source was configured and this development run made up its own HS256 secret. */
  developmentSecret: string | undefined;
  /** The graceful shutdown (readiness 503, drain, close the store and tracing); runs once however often called. */
  shutdown: (signal?: string, options?: { startFailed?: boolean }) => Promise<void>;
}

export interface RunningPlantStore extends ComposedPlantStore {
  /** Where the API listens, e.g. http://127.0.0.1:3000. */
  url: string;
  /** Where GET /metrics listens when METRICS_PORT is set. */
  metricsUrl: string | undefined;
  /**
   * Settles if the start fails after startPlantStore has returned: the store's wait ended in an error no retry
   * fixes (a database that comes up refusing our credentials). The line is logged and everything closed by then.
   */
  failed: Promise<StartFailure>;
}

/**
 * The composition root: turns a validated configuration into the whole server (token verifier, tracing, logger,
 * store, app, its HTTP servers and their shutdown), listening nowhere. Fails with auth's ConfigError before anything
 * is started, or with a StartFailure naming DATABASE_URL when the store cannot be opened (tracing is stopped first).
 */
export async function composePlantStore(
  config: Config,
  overrides: PlantStoreOverrides = {},
): Promise<ComposedPlantStore> {
  const { verifier, developmentSecret, keys } = createTokenVerifier(config);
  const metrics = overrides.metrics ?? createMetrics();
  // Before the store opens (see load-tracing.ts); nothing of the SDK is loaded unless traces are exported.
  const tracing = await loadTracing(tracesExport(config), metrics.registry);
  const logger = overrides.logger ?? createLogger(config.LOG_LEVEL, undefined, tracing.logFields);
  tracing.logTo(logger);
  // The scopes a token must grant, so whoever mints one (pnpm run token reads JWT_REQUIRED_SCOPE) sees what to grant.
  logger.info({ keys, requiredScopes: config.JWT_REQUIRED_SCOPE ?? [] }, "token keys loaded");

  const storeAt = storeOptions(config);
  const waitingStore =
    overrides.store === undefined && overrides.storeInBackground
      ? new WaitingStore({
          open: () => openStore(storeAt, logger),
          isTransient: (error) => isTransientOpenError(config.DATABASE_URL.system, error),
          logger,
        })
      : undefined;
  let opened: PlantStore;
  try {
    opened = overrides.store ?? waitingStore ?? (await openStore(storeAt, logger));
  } catch (error) {
    await tracing.shutdown(0);
    throw storeFailure(error);
  }
  const {
    store,
    verifier: tokenVerifier,
    first,
  } = tracing.instrument({
    store: opened,
    system: config.DATABASE_URL.system,
    // Clients send the same token on every request: its signature is verified once, not per request.
    verifier: new VerifiedTokenCache(verifier),
  });
  const lifecycle = new Lifecycle();
  const app = createApp({
    store,
    verifier: tokenVerifier,
    first,
    logger,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    requiredScopes: config.JWT_REQUIRED_SCOPE,
    rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE,
    metrics,
    lifecycle,
    corsOrigins: config.CORS_ORIGINS,
    trustProxy: config.TRUST_PROXY,
    serveMetrics: config.METRICS_PORT === undefined,
    validateResponses: config.VALIDATE_RESPONSES,
    publicUrl: config.PUBLIC_URL,
  });
  const admission = config.ADMISSION_CONTROL
    ? { options: admissionOptions(config), deps: { metrics, clock: overrides.admissionClock } }
    : undefined;
  const server = createHttpServer(app, connectionTimeouts(config), logger, admission);
  const metricsServer = config.METRICS_PORT === undefined ? undefined : createMetricsServer(metrics.registry, logger);
  const shutdown = gracefulShutdown({
    server,
    auxiliaryServers: metricsServer === undefined ? [] : [metricsServer],
    store,
    lifecycle,
    logger,
    tracing,
    delayMs: config.SHUTDOWN_DELAY_MS,
    timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  });
  return {
    app,
    server,
    metricsServer,
    store,
    waitingStore,
    metrics,
    lifecycle,
    logger,
    tracing,
    developmentSecret,
    shutdown: (signal = "shutdown", options) => shutdown(signal, options),
  };
}

/**
 * Starts the server: composes it (composePlantStore), listens on HOST:PORT and, when set, METRICS_HOST:METRICS_PORT,
 * then gives the store's first attempt to open a moment, so the line that says where it listens also says it is ready
 * in the usual case. Any failure, now or later while the store opens, takes one path: one log line naming the setting,
 * everything composed closed, then a StartFailure (thrown here, or settling `failed`). main.ts starts it here.
 */
export async function startPlantStore(config: Config, overrides: PlantStoreOverrides = {}): Promise<RunningPlantStore> {
  const composed = await composePlantStore(config, overrides);
  const { logger, waitingStore } = composed;
  const abandon = abandonStart(composed);
  let url: string;
  let metricsUrl: string | undefined;
  try {
    url = await listen(composed.server, {
      port: config.PORT,
      host: config.HOST,
      portSetting: "PORT",
      hostSetting: "HOST",
      backlog: config.LISTEN_BACKLOG,
    });
    metricsUrl =
      composed.metricsServer === undefined
        ? undefined
        : `${await listen(composed.metricsServer, {
            port: config.METRICS_PORT ?? 0,
            host: config.METRICS_HOST ?? config.HOST,
            portSetting: "METRICS_PORT",
            hostSetting: config.METRICS_HOST === undefined ? "HOST" : "METRICS_HOST",
          })}/metrics`;
    const state = waitingStore === undefined ? undefined : await firstAttempt(waitingStore);
    if (state?.kind === "failed") throw state.error;
    const ready = state === undefined || state.kind === "open";
    logger.info({ url, database: describeDatabaseUrl(config.DATABASE_URL), ready }, "plant store listening");
  } catch (error) {
    throw await abandon(error);
  }
  if (metricsUrl !== undefined) logger.info({ metricsUrl }, "metrics listening");
  // From here on, only the store's wait can still fail the start.
  const failed =
    waitingStore === undefined ? new Promise<never>(() => undefined) : storeFailed(waitingStore).then(abandon);
  return { ...composed, url, metricsUrl, failed };
}

/** The one cleanup path of a failed start: one line naming the setting, then everything closed; once. */
function abandonStart(composed: ComposedPlantStore): (error: unknown) => Promise<StartFailure> {
  let abandoned: Promise<StartFailure> | undefined;
  return (error) => {
    abandoned ??= (async () => {
      const failure = error instanceof StartFailure ? error : storeFailure(error);
      composed.logger.fatal(
        { code: failure.code, setting: failure.setting },
        `plant store failed to start: ${failure.message}`,
      );
      await composed.shutdown("start failed", { startFailed: true });
      return failure;
    })();
    return abandoned;
  };
}

/** A failure to open the store no retry fixes, naming DATABASE_URL and the store by path or masked URL. */
function storeFailure(error: unknown): StartFailure {
  // openStore's errors name DATABASE_URL and the store (by path, or the URL with its password masked) themselves.
  return error instanceof StartFailure ? error : new StartFailure("DATABASE_URL", oneLine(error), { cause: error });
}

/** The error that ends the store's wait, if one does; never settles for a store that opens or is closed. */
async function storeFailed(store: WaitingStore): Promise<unknown> {
  const state = await store.until((state) => state.kind === "failed");
  return (state as Extract<WaitingState, { kind: "failed" }>).error;
}

/** The state after the store's first attempt to open, or `opening` still when it takes longer than the grace. */
async function firstAttempt(store: WaitingStore): Promise<WaitingState> {
  const grace = new AbortController();
  const settled = store.until((state) => state.kind !== "opening");
  const timedOut = delay(FIRST_ATTEMPT_GRACE_MS, undefined, { signal: grace.signal }).then(
    () => store.state,
    () => store.state,
  );
  const state = await Promise.race([settled, timedOut]);
  grace.abort();
  return state;
}

/** Listens and resolves with the server's URL, or rejects with a StartFailure naming the setting (a port in use). */
function listen(server: Server, target: ListenTarget & { backlog?: number }): Promise<string> {
  return new Promise((resolve, reject) => {
    const refused = (error: Error) => reject(listenFailure(error, target));
    server.once("error", refused);
    const { port, host, backlog } = target;
    server.listen({ port, host, ...(backlog !== undefined && { backlog }) }, () => {
      server.off("error", refused);
      const { address, port: bound } = server.address() as AddressInfo;
      resolve(`http://${address.includes(":") ? `[${address}]` : address}:${bound}`);
    });
  });
}
