import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Express } from "express";
import { createApp } from "../app.js";
import { VerifiedTokenCache } from "../auth/verified-token-cache.js";
import { type Config, tracesExport } from "../config.js";
import { createHttpServer } from "../connection/http-server.js";
import type { AdmissionClock } from "../connection/admission-clock.js";
import { createLogger, type Logger } from "../logger.js";
import { Lifecycle } from "../ops/lifecycle.js";
import { createMetrics, type Metrics } from "../ops/metrics.js";
import { databaseSystem, describeDatabase, isTransientOpenError, openStore } from "../store/open-store.js";
import type { PlantStore } from "../store/plant-store.js";
import { WaitingStore } from "../store/waiting-store.js";
import { instrument } from "../tracing/instrument.js";
import { loadTracing } from "../tracing/load-tracing.js";
import type { Tracing } from "../tracing/tracing.js";
import { gracefulShutdown } from "./graceful-shutdown.js";
import { createMetricsServer } from "./metrics-server.js";
import { createTokenVerifier } from "./token-verifier-from-config.js";

/** Parts a caller supplies instead of the ones the configuration would make (tests, mostly), and how the store opens. */
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

/** The server's parts before anything listens: what tests drive through supertest, and what startPlantStore serves. */
export interface ComposedPlantStore {
  app: Express;
  store: PlantStore;
  metrics: Metrics;
  lifecycle: Lifecycle;
  logger: Logger;
  tracing: Tracing | undefined;
  /** Set when no key source was configured and this development run made up its own HS256 secret. */
  developmentSecret?: string;
  /** The shutdown sequence with no server to drain (readiness 503, close the store); runs once however often called. */
  shutdown: (signal?: string) => Promise<void>;
  /** With storeInBackground: the store still opening, whose `failure` is a configuration error that must end the process. */
  waitingStore?: WaitingStore;
}

export interface RunningPlantStore {
  /** Where the API listens, e.g. http://127.0.0.1:3000. */
  url: string;
  /** Where GET /metrics listens when METRICS_PORT is set. */
  metricsUrl?: string;
  app: Express;
  server: Server;
  metricsServer?: Server;
  store: PlantStore;
  metrics: Metrics;
  lifecycle: Lifecycle;
  logger: Logger;
  /** Set when no key source was configured and this development run made up its own HS256 secret. */
  developmentSecret?: string;
  /** The graceful shutdown sequence (readiness 503, drain, close the store); runs once however often called. */
  shutdown: (signal?: string) => Promise<void>;
  /** With storeInBackground: the store still opening, whose `failure` is a configuration error that must end the process. */
  waitingStore?: WaitingStore;
}

/**
 * The composition root: turns a validated configuration into the app and what it runs on (store, metrics,
 * lifecycle, tracing), listening nowhere. startPlantStore serves it; in-process tests drive it with supertest.
 */
export async function composePlantStore(config: Config, overrides: PlantStoreOverrides = {}): Promise<ComposedPlantStore> {
  const metrics = overrides.metrics ?? createMetrics();
  // Before the store opens (see load-tracing.ts); undefined, and nothing of the SDK loaded, unless configured.
  const tracing = await loadTracing(tracesExport(config), metrics.registry);
  const logger = overrides.logger ?? createLogger(config.LOG_LEVEL, undefined, tracing?.logFields);
  tracing?.logTo(logger);
  const { verifier, developmentSecret, keys } = createTokenVerifier(config);
  // The scopes a token must grant, so whoever mints one (pnpm token reads JWT_REQUIRED_SCOPE) sees what to grant.
  logger.info({ keys, requiredScopes: config.JWT_REQUIRED_SCOPE ?? [] }, "token keys loaded");
  const waitingStore =
    overrides.store === undefined && overrides.storeInBackground
      ? new WaitingStore({
          open: () => openStore(config, logger),
          isTransient: (error) => isTransientOpenError(config.DATABASE_URL, error),
          logger,
        })
      : undefined;
  const openedStore = overrides.store ?? waitingStore ?? (await openStore(config, logger));
  const { store, verifier: tokenVerifier, first } = instrument(tracing, {
    store: openedStore,
    system: databaseSystem(config.DATABASE_URL),
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
  const shutdown = shutdownSequence(config, { store, lifecycle, logger, tracing }, { auxiliaryServers: [] });
  return {
    app,
    store,
    metrics,
    lifecycle,
    logger,
    tracing,
    ...(developmentSecret !== undefined && { developmentSecret }),
    shutdown: (signal = "shutdown") => shutdown(signal),
    ...(waitingStore !== undefined && { waitingStore }),
  };
}

/**
 * Starts the server: the composed app (composePlantStore) served on HOST:PORT, the metrics server on
 * METRICS_PORT when set, and the graceful shutdown of both. main.ts and, through main, the benchmark start it here.
 */
export async function startPlantStore(config: Config, overrides: PlantStoreOverrides = {}): Promise<RunningPlantStore> {
  const { app, store, metrics, lifecycle, logger, tracing, developmentSecret, waitingStore } = await composePlantStore(config, overrides);
  const admission = config.ADMISSION_CONTROL ? { metrics, clock: overrides.admissionClock } : undefined;
  const server = createHttpServer(app, config, logger, admission);
  const metricsServer = config.METRICS_PORT === undefined ? undefined : createMetricsServer(metrics.registry, logger);
  let url: string;
  let metricsUrl: string | undefined;
  try {
    url = await listen(server, config.PORT, config.HOST, config.LISTEN_BACKLOG);
    if (metricsServer) metricsUrl = `${await listen(metricsServer, config.METRICS_PORT ?? 0, config.METRICS_HOST ?? config.HOST)}/metrics`;
  } catch (error) {
    server.close();
    metricsServer?.close();
    await store.close().catch(() => undefined);
    throw error;
  }
  if (waitingStore !== undefined) {
    // Already listening (GET /healthz answers). The line below waits for the first attempt to open the store,
    // briefly, so whoever reads it finds the server ready in the usual case; a configuration error ends the start.
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([waitingStore.firstAttempt, new Promise((resolve) => (grace = setTimeout(resolve, FIRST_ATTEMPT_GRACE_MS)))]);
    clearTimeout(grace);
    if (waitingStore.failedWith !== undefined) {
      server.close();
      metricsServer?.close();
      throw waitingStore.failedWith;
    }
  }
  const ready = waitingStore?.isOpen ?? true;
  logger.info({ url, database: describeDatabase(config.DATABASE_URL), ready }, "plant store listening");
  if (metricsUrl !== undefined) logger.info({ metricsUrl }, "metrics listening");

  const shutdown = shutdownSequence(
    config,
    { store, lifecycle, logger, tracing },
    { server, auxiliaryServers: metricsServer ? [metricsServer] : [] },
  );
  return {
    url,
    ...(metricsUrl !== undefined && { metricsUrl }),
    app,
    server,
    ...(metricsServer !== undefined && { metricsServer }),
    store,
    metrics,
    lifecycle,
    logger,
    ...(developmentSecret !== undefined && { developmentSecret }),
    shutdown: (signal = "shutdown") => shutdown(signal),
    ...(waitingStore !== undefined && { waitingStore }),
  };
}

/** The graceful shutdown of these parts with SHUTDOWN_DELAY_MS and SHUTDOWN_TIMEOUT_MS, draining the servers given. */
function shutdownSequence(
  config: Config,
  parts: Pick<ComposedPlantStore, "store" | "lifecycle" | "logger" | "tracing">,
  servers: Pick<Parameters<typeof gracefulShutdown>[0], "server" | "auxiliaryServers">,
) {
  return gracefulShutdown({ ...servers, ...parts, delayMs: config.SHUTDOWN_DELAY_MS, timeoutMs: config.SHUTDOWN_TIMEOUT_MS });
}

/** Listens and resolves with the server's URL, or rejects with the listen error (a port in use). */
function listen(server: Server, port: number, host: string, backlog?: number): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port, host, ...(backlog !== undefined && { backlog }) }, () => {
      server.off("error", reject);
      const { address, port: bound } = server.address() as AddressInfo;
      resolve(`http://${address.includes(":") ? `[${address}]` : address}:${bound}`);
    });
  });
}
