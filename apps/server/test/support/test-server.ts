import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { type AppDeps, createApp } from "../../src/app.js";
import { JwtVerifier } from "../../src/auth/jwt-verifier.js";
import { signToken } from "../../src/auth/sign-token.js";
import { createLogger } from "../../src/logging/logger.js";
import { SqlitePlantStore } from "../../src/store/sqlite/sqlite-plant-store.js";

export const TEST_SECRET = "test-secret-that-is-at-least-32-characters-long";

export interface TestServerOptions {
  issuer?: string;
  audience?: string;
  bodyLimitBytes?: number;
  /** Reuse an existing database file (to test persistence across restarts). */
  databaseFile?: string;
  /** Extra or replaced app dependencies (a capturing logger, metrics, CORS origins, ...). */
  overrides?: Partial<AppDeps>;
}

/** A real app on a real SQLite file in a fresh temp folder; `close()` removes everything. */
export async function startTestApp(options: TestServerOptions = {}) {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-test-"));
  const databaseFile = options.databaseFile ?? join(dir, "plants.db");
  const store = await SqlitePlantStore.open(databaseFile);
  const verifier = new JwtVerifier({ secret: TEST_SECRET, issuer: options.issuer, audience: options.audience });
  const app = createApp({
    store,
    verifier,
    logger: createLogger("silent"),
    bodyLimitBytes: options.bodyLimitBytes ?? 1024 * 1024,
    ...options.overrides,
  });
  const token = signToken({ secret: TEST_SECRET, issuer: options.issuer, audience: options.audience });

  /** The rows actually in the database file, read through a separate connection. */
  const rows = (): { id: bigint; name: string; tag: string | null }[] => {
    const reader = new Database(databaseFile, { readonly: true });
    try {
      return reader.prepare("SELECT id, name, tag FROM plants ORDER BY id").safeIntegers(true).all() as never;
    } finally {
      reader.close();
    }
  };

  return {
    app,
    store,
    token,
    databaseFile,
    rows,
    auth: { Authorization: `Bearer ${token}` },
    async close(options: { keepFiles?: boolean } = {}) {
      await store.close().catch(() => undefined);
      if (!options.keepFiles) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type TestApp = Awaited<ReturnType<typeof startTestApp>>;
