import type { AddressInfo } from "node:net";
import { createApp } from "./app.js";
import { developmentBanner, generateDevelopmentSecret } from "./auth/development-credentials.js";
import { JwtVerifier } from "./auth/jwt-verifier.js";
import { ConfigError, loadConfig } from "./config.js";
import { createHttpServer } from "./http/http-server.js";
import { createLogger } from "./logger.js";
import { openStore } from "./store/open-store.js";

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  const secret = config.JWT_SECRET ?? generateDevelopmentSecret();
  const store = await openStore(config.DATABASE_URL);
  const verifier = new JwtVerifier({ secret, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE });
  const app = createApp({ store, verifier, logger, bodyLimitBytes: config.BODY_LIMIT_BYTES });

  const server = createHttpServer(app).listen(config.PORT, config.HOST);
  server.on("error", (error) => {
    logger.fatal({ err: error }, "server failed");
    process.exit(1);
  });
  server.on("listening", () => {
    const { address, port } = server.address() as AddressInfo;
    const baseUrl = `http://${address.includes(":") ? `[${address}]` : address}:${port}`;
    logger.info({ url: baseUrl, database: config.DATABASE_URL }, "plant store listening");
    if (config.JWT_SECRET === undefined) {
      process.stdout.write(developmentBanner({ secret, baseUrl, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE }));
    }
  });

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down: finishing requests in flight");
    // Stop accepting; keep closing connections as they go idle so keep-alive clients cannot hold us open.
    server.close();
    const reapIdle = setInterval(() => server.closeIdleConnections(), 100);
    const deadline = setTimeout(() => {
      logger.warn("shutdown timeout reached: closing remaining connections");
      server.closeAllConnections();
    }, config.SHUTDOWN_TIMEOUT_MS);
    server.once("close", async () => {
      clearInterval(reapIdle);
      clearTimeout(deadline);
      await store.close();
      logger.info("stopped");
      process.exit(0);
    });
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`plant store failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  process.exit(1);
});
