import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { issueTokenWithCli, startServerProcess } from "@plant-store/server/test-support/server-process";

const SECRET = "consumer-tests-secret-at-least-32-chars!";

export interface RunningServer {
  baseUrl: string;
  /** A bearer token the server accepts, minted by the server's own `token` script. */
  token: string;
  stop(): Promise<void>;
}

/** Starts the built server (apps/server/dist/main.js) with plain node on 127.0.0.1, port 0, a fresh SQLite file. */
export async function startServer(options: { corsOrigins?: string[] } = {}): Promise<RunningServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "plant-store-consumer-db-"));
  const env = {
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    JWT_SECRET: SECRET,
    DATABASE_URL: join(dataDir, "plants.db"),
    CORS_ORIGINS: (options.corsOrigins ?? []).join(","),
    // No load balancer routes to it: stop without production's default wait before closing the listener.
    SHUTDOWN_DELAY_MS: "0",
  };
  const removeData = () => rmSync(dataDir, { recursive: true, force: true });
  const server = await startServerProcess(env, { keepOutputChars: 64 * 1024 }).catch((error: unknown) => {
    removeData();
    throw error;
  });
  const stop = async () => {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGTERM");
    await server.exited;
    removeData();
  };
  try {
    return { baseUrl: server.baseUrl, token: await issueTokenWithCli(env, "consumer-tests"), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
