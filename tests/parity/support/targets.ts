import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakePlantStore } from "@plant-store/client/testing";
import { issueTokenWithCli, startServerProcess } from "@plant-store/server/test-support/server-process";

/** Where the scenarios are sent: a base URL, a bearer token it accepts, and how to stop it. */
export interface Target {
  baseUrl: string;
  token: string;
  stop(): Promise<void>;
}

/** The body limit both targets run with, small enough for a 413 scenario to stay cheap. */
export const BODY_LIMIT_BYTES = 64 * 1024;


/** The built server (apps/server/dist/main.js) as a process on 127.0.0.1, port 0, SQLite in a temp folder, a minted token. */
export async function startRealServer(): Promise<Target> {
  const dataDir = mkdtempSync(join(tmpdir(), "plant-store-parity-"));
  const env = {
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    JWT_SECRET: "parity-tests-secret-of-at-least-32-chars",
    DATABASE_URL: join(dataDir, "plants.db"),
    BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES),
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
    return { baseUrl: server.baseUrl, token: await issueTokenWithCli(env, "parity-tests"), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The client's fake, with the same body limit; it accepts any well-formed bearer token. */
export async function startFake(): Promise<Target> {
  const fake = await startFakePlantStore({ bodyLimitBytes: BODY_LIMIT_BYTES });
  return { baseUrl: fake.url, token: "any-token-will-do", stop: () => fake.close() };
}
