import { developmentBanner } from "./auth/development-credentials.js";
import { ConfigError, loadConfig } from "./config.js";
import { startPlantStore } from "./startup/start-plant-store.js";

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
  // A configuration error met after the start (a database that comes up refusing our credentials): no retry fixes it.
  running.waitingStore?.failure.then((error) => exitOnStartFailure(error));
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

function exitOnStartFailure(error: unknown): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`plant store failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  process.exit(1);
}

main().catch(exitOnStartFailure);
