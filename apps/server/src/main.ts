import type { AddressInfo } from "node:net";
import { createApp } from "./app.js";
import { createTokenVerifier } from "./startup/token-verifier-from-config.js";
import { developmentBanner } from "./auth/development-credentials.js";
import { ConfigError, loadConfig } from "./config.js";
import { createHttpServer } from "./connection/http-server.js";
import { createLogger } from "./logging/logger.js";
import { gracefulShutdown } from "./ops/graceful-shutdown.js";
import { Lifecycle } from "./ops/lifecycle.js";
import { createMetrics } from "./ops/metrics.js";
import { listenMetricsServer } from "./ops/metrics-server.js";
import { describeDatabase, openStore } from "./store/open-store.js";

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  const { verifier, developmentSecret } = createTokenVerifier(config);
  const store = await openStore(config, logger);
  const metrics = createMetrics();
  const lifecycle = new Lifecycle();
  const app = createApp({
    store,
    verifier,
    logger,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    requiredScopes: config.JWT_REQUIRED_SCOPE,
    rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE,
    metrics,
    lifecycle,
    corsOrigins: config.CORS_ORIGINS,
    trustProxy: config.TRUST_PROXY,
    serveMetrics: config.METRICS_PORT === undefined,
  });

  const server = createHttpServer(app, config, logger).listen(config.PORT, config.HOST);
  server.on("error", (error) => {
    logger.fatal({ err: error }, "server failed");
    process.exit(1);
  });
  server.on("listening", () => {
    const baseUrl = urlOf(server.address() as AddressInfo);
    logger.info({ url: baseUrl, database: describeDatabase(config.DATABASE_URL) }, "plant store listening");
    if (developmentSecret !== undefined) {
      process.stdout.write(
        developmentBanner({ secret: developmentSecret, baseUrl, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE }),
      );
    }
  });

  const metricsServer =
    config.METRICS_PORT === undefined
      ? undefined
      : listenMetricsServer(metrics, logger, config.METRICS_PORT, config.METRICS_HOST ?? config.HOST);
  metricsServer?.on("error", (error) => {
    logger.fatal({ err: error }, "metrics server failed");
    process.exit(1);
  });
  metricsServer?.on("listening", () => {
    logger.info({ metricsUrl: `${urlOf(metricsServer.address() as AddressInfo)}/metrics` }, "metrics listening");
  });

  const shutdown = gracefulShutdown({
    server,
    auxiliaryServers: metricsServer ? [metricsServer] : [],
    store,
    lifecycle,
    logger,
    delayMs: config.SHUTDOWN_DELAY_MS,
    timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  });
  const onSignal = (signal: string) => {
    shutdown(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        logger.fatal({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  process.on("SIGINT", () => onSignal("SIGINT"));
}

function urlOf({ address, port }: AddressInfo): string {
  return `http://${address.includes(":") ? `[${address}]` : address}:${port}`;
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`plant store failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  process.exit(1);
});
