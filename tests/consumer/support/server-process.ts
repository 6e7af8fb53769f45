import { builtServerEntries, startServerWithToken } from "@plant-store/test-support/server-process";

export interface RunningServer {
  baseUrl: string;
  /** A bearer token the server accepts, minted by the server's own `token` script. */
  token: string;
  stop(): Promise<void>;
}

/** Starts the built server (apps/server/dist/main.js) with plain node on 127.0.0.1, port 0, a fresh SQLite file. */
export function startServer(options: { corsOrigins?: string[] } = {}): Promise<RunningServer> {
  return startServerWithToken(
    builtServerEntries(import.meta.url),
    { JWT_SECRET: "consumer-tests-secret-at-least-32-chars!", CORS_ORIGINS: (options.corsOrigins ?? []).join(",") },
    "consumer-tests",
  );
}
