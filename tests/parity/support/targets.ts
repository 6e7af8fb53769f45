import { startFakePlantStore } from "@plant-store/client/testing";
import { startServerWithToken } from "@plant-store/server/test-support/server-process";

/** Where the scenarios are sent: a base URL, a bearer token it accepts, and how to stop it. */
export interface Target {
  baseUrl: string;
  token: string;
  stop(): Promise<void>;
}

/** The body limit both targets run with, small enough for a 413 scenario to stay cheap. */
export const BODY_LIMIT_BYTES = 64 * 1024;


/** The built server (apps/server/dist/main.js) as a process on 127.0.0.1, port 0, SQLite in a temp folder, a minted token. */
export function startRealServer(): Promise<Target> {
  return startServerWithToken(
    { JWT_SECRET: "parity-tests-secret-of-at-least-32-chars", BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES) },
    "parity-tests",
  );
}

/** The client's fake, with the same body limit; it accepts any well-formed bearer token. */
export async function startFake(): Promise<Target> {
  const fake = await startFakePlantStore({ bodyLimitBytes: BODY_LIMIT_BYTES });
  return { baseUrl: fake.url, token: "any-token-will-do", stop: () => fake.close() };
}
