import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import request from "supertest";
import { afterEach } from "vitest";
import { signToken } from "../../src/auth/sign-token.js";
import { loadConfig } from "../../src/config.js";
import { type PlantStoreOverrides, startPlantStore } from "../../src/startup/start-plant-store.js";
import { querySqliteFile } from "./sqlite-file.js";

export const TEST_SECRET = "test-secret-that-is-at-least-32-characters-long";

export interface TestServerOptions {
  issuer?: string;
  audience?: string;
  bodyLimitBytes?: number;
  /** Reuse an existing database file (to test persistence across restarts). */
  databaseFile?: string;
  /** More configuration, as environment variables (CORS_ORIGINS, TRUST_PROXY, METRICS_PORT, ...). */
  env?: Record<string, string>;
  /** Parts to use instead of the configured ones (a capturing logger, metrics to read, a store). */
  overrides?: PlantStoreOverrides;
}

/**
 * The server as main.ts starts it (the composition root), on 127.0.0.1 and a free port, over a real SQLite
 * file in a fresh temp folder, with every response checked against the contract (VALIDATE_RESPONSES):
 * a test that provokes a response breaking it gets a 500 instead. `close()` shuts it down and removes the files.
 */
export async function startTestApp(options: TestServerOptions = {}) {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-test-"));
  const databaseFile = options.databaseFile ?? join(dir, "plants.db");
  const env: Record<string, string> = {
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: "silent",
    VALIDATE_RESPONSES: "true",
    DATABASE_URL: databaseFile,
    JWT_SECRET: TEST_SECRET,
    ...(options.issuer !== undefined && { JWT_ISSUER: options.issuer }),
    ...(options.audience !== undefined && { JWT_AUDIENCE: options.audience }),
    ...(options.bodyLimitBytes !== undefined && { BODY_LIMIT_BYTES: String(options.bodyLimitBytes) }),
    ...options.env,
  };
  const running = await startPlantStore(loadConfig(env), options.overrides);
  const token = signToken({ secret: TEST_SECRET, issuer: options.issuer, audience: options.audience });

  /** The rows actually in the database file, read through a separate connection. */
  const rows = (): { id: bigint; name: string; tag: string | null }[] =>
    querySqliteFile(databaseFile, (db) => db.prepare("SELECT id, name, tag FROM plants ORDER BY id").all() as never);

  return {
    ...running,
    token,
    databaseFile,
    rows,
    auth: { Authorization: `Bearer ${token}` },
    /** POST /plants with this JSON text as the body, exactly as written, and a valid token. */
    postJson: (json: string) =>
      request(running.app)
        .post("/plants")
        .set("Authorization", `Bearer ${token}`)
        .set("Content-Type", "application/json")
        .send(json),
    async close(closeOptions: { keepFiles?: boolean } = {}) {
      // A test may have closed the store itself already; the server is closed either way.
      await running.shutdown("test finished").catch(() => undefined);
      if (!closeOptions.keepFiles) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type TestApp = Awaited<ReturnType<typeof startTestApp>>;

/** startTestApp for a test file whose tests start their own servers: each is closed after its test. */
export function testApps(): (options?: TestServerOptions) => Promise<TestApp> {
  const started: TestApp[] = [];
  afterEach(async () => {
    for (const app of started.splice(0)) await app.close();
  });
  return async (options) => {
    const app = await startTestApp(options);
    started.push(app);
    return app;
  };
}
