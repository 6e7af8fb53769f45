import { developmentBanner } from "./auth/development-credentials.js";
import { loadConfig } from "./config.js";
import { startPlantStore } from "./startup/start-plant-store.js";
import { ConfigError, StartFailure } from "./operator-errors.js";

/** The process: configuration from the environment, the server from the composition root, signals to shutdown. */
async function main(): Promise<void> {
  const config = loadConfig();
  // A signal that comes while the start is still under way (the server may be listening already, waiting for
  // its store) is answered once it is done: with the shutdown, not with Node's default of dying on the spot.
  let pendingSignal: string | undefined;
  let onSignal = (signal: string) => {
    pendingSignal ??= signal;
  };
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  process.on("SIGINT", () => onSignal("SIGINT"));
  const running = await startPlantStore(config, { storeInBackground: true });
  const { logger } = running;
  // Logged and closed by the start's cleanup already (a database that comes up refusing our credentials).
  void running.failed.then(() => process.exit(1));
  for (const server of [running.server, running.metricsServer]) {
    server?.on("error", (error) => {
      logger.fatal({ err: error }, "server failed");
      process.exit(1);
    });
  }
  if (running.developmentSecret !== undefined) {
    process.stdout.write(
      developmentBanner({
        secret: running.developmentSecret,
        baseUrl: running.url,
        issuer: config.JWT_ISSUER,
        audience: config.JWT_AUDIENCE,
        scopes: config.JWT_REQUIRED_SCOPE,
      }),
    );
  }
  onSignal = (signal: string) => {
    running.shutdown(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        logger.fatal({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  if (pendingSignal !== undefined) onSignal(pendingSignal);
}

/**
 * A start that failed: a StartFailure has been logged as one JSON line by the start's cleanup; a failure before the
 * logger exists (a ConfigError naming its variable) is one line on stderr.
 */
function exitOnStartFailure(error: unknown): never {
  if (error instanceof StartFailure) process.exit(1);
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(error instanceof ConfigError ? `${message}\n` : `plant store failed to start: ${message}\n`);
  process.exit(1);
}

main().catch(exitOnStartFailure);
