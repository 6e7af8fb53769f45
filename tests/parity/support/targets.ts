import { plantStoreHandlers } from "@plant-store/client/msw";
import { createFakePlantStore, startFakePlantStore } from "@plant-store/client/testing";
import { builtServerEntries, startServerWithToken } from "@plant-store/test-support/server-process";

/** Where the scenarios are sent: a base URL, a bearer token it accepts, the fetch that reaches it, and how to stop it. */
export interface Target {
  name: string;
  baseUrl: string;
  token: string;
  /** Called at each request, so a fetch msw patches while it listens is the one used. */
  fetch: () => typeof fetch;
  /** Runs one scenario against the target (msw intercepts only while it runs: the real server is played unpatched). */
  during<T>(play: () => Promise<T>): Promise<T>;
  stop(): Promise<void>;
}

/** The msw major this test project resolves `msw` to: 3, or 2 in the project that aliases it to msw2. */
export const mswMajor = process.env.PLANT_STORE_MSW === "2" ? 2 : 3;

/** The body limit every target runs with, small enough for a 413 scenario to stay cheap. */
export const BODY_LIMIT_BYTES = 64 * 1024;

const globalFetch = () => fetch;
const direct = <T>(play: () => Promise<T>) => play();

/** The built server (apps/server/dist/main.js) as a process on 127.0.0.1, port 0, SQLite in a temp folder, a minted token. */
export async function startRealServer(): Promise<Target> {
  const server = await startServerWithToken(
    builtServerEntries(import.meta.url),
    { JWT_SECRET: "parity-tests-secret-of-at-least-32-chars", BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES) },
    "parity-tests",
  );
  return { ...server, name: "the real server", fetch: globalFetch, during: direct };
}

/** The client's HTTP fake, with the same body limit; it accepts any well-formed bearer token. */
export async function startHttpFake(): Promise<Target> {
  const fake = await startFakePlantStore({ bodyLimitBytes: BODY_LIMIT_BYTES });
  return {
    name: "the HTTP fake",
    baseUrl: fake.url,
    token: "any-token-will-do",
    fetch: globalFetch,
    during: direct,
    stop: () => fake.close(),
  };
}

/** The client's fetch fake: no socket, the scenarios' requests go to its fetch function. */
export async function startFetchFake(): Promise<Target> {
  const fake = createFakePlantStore({ bodyLimitBytes: BODY_LIMIT_BYTES });
  const fakeFetch = fake.fetch as typeof fetch;
  return {
    name: "the fetch fake",
    baseUrl: "http://fetch-fake.invalid",
    token: "any-token-will-do",
    fetch: () => fakeFetch,
    during: direct,
    stop: async () => fake.reset(),
  };
}

/**
 * The client's msw handlers in msw's `setupServer` (msw 3, or 2 in the project that aliases it), under a base URL
 * with a path; any request msw does not handle is an error, so nothing reaches the network.
 */
export async function startMsw(): Promise<Target> {
  const baseUrl = "http://msw-fake.invalid/api";
  const fake = plantStoreHandlers({ baseUrl, bodyLimitBytes: BODY_LIMIT_BYTES });
  const server = (await import("msw/node")).setupServer(...(fake.handlers as never[]));
  // The option that makes an unhandled request an error is named differently in msw 2.
  const strict = mswMajor === 3 ? { onUnhandledFrame: "error" as const } : ({ onUnhandledRequest: "error" } as never);
  return {
    name: `the msw ${mswMajor} handlers`,
    baseUrl,
    token: "any-token-will-do",
    fetch: globalFetch,
    async during(play) {
      server.listen(strict);
      try {
        return await play();
      } finally {
        server.close();
      }
    },
    stop: async () => fake.reset(),
  };
}
