import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import request from "supertest";
import { signToken } from "../../src/auth/sign-token.js";
import { loadConfig } from "../../src/config.js";
import {
  type ComposedPlantStore,
  composePlantStore,
  type PlantStoreOverrides,
  startPlantStore,
} from "../../src/startup/start-plant-store.js";
import { MemoryPlantStore } from "./memory-plant-store.js";
import { querySqliteFile } from "@plant-store/test-support/sqlite-file";
import { tearDownWith } from "@plant-store/test-support/teardown";
import { TEST_SECRET } from "./tokens.js";

export { TEST_SECRET };

export interface TestServerOptions {
  issuer?: string;
  audience?: string;
  bodyLimitBytes?: number;
  /** Reuse an existing database file (to test persistence across restarts). */
  databaseFile?: string;
  /**
   * More configuration, as environment variables (CORS_ORIGINS, TRUST_PROXY, JWT_PUBLIC_KEY, ...). The server
   * verifies tokens with TEST_SECRET unless these name a key source of their own.
   */
  env?: Record<string, string>;
  /** Parts to use instead of the configured ones (a capturing logger, metrics to read, a store). */
  overrides?: PlantStoreOverrides;
  /**
   * "memory" for suites that test what happens in front of the store (auth, validation, headers, logs): a
   * MemoryPlantStore, which passes the store conformance suite, instead of a SQLite file and its threads.
   */
  store?: "sqlite" | "memory";
  /**
   * Serve on 127.0.0.1 and a free port (url, server, and metricsUrl with METRICS_PORT), for tests that need a
   * real connection. Otherwise nothing listens: tests drive `app` with supertest.
   */
  listen?: boolean;
}

const KEY_SOURCES = ["JWT_SECRET", "JWT_PUBLIC_KEY", "JWT_PUBLIC_KEY_FILE", "JWT_JWKS_URI"];

/**
 * The one way to run the server in-process in tests: the composition root (composePlantStore, as main.ts
 * starts it) over a real SQLite file in a fresh temp folder (or a MemoryPlantStore), with every response
 * checked against the contract (VALIDATE_RESPONSES): a test that provokes a response breaking it gets a 500.
 * `close()` shuts it down and removes the files; the end of the test (or of the file, when started outside a
 * test) closes it too. The built server as a process: server-process.ts.
 */
export function startTestApp(options: TestServerOptions & { listen: true }): Promise<ListeningTestApp>;
export function startTestApp(options?: TestServerOptions): Promise<TestApp>;
export async function startTestApp(options: TestServerOptions = {}): Promise<TestApp | ListeningTestApp> {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-test-"));
  const memory = options.store === "memory" ? new MemoryPlantStore() : undefined;
  const databaseFile = options.databaseFile ?? join(dir, "plants.db");
  const ownKeySource = KEY_SOURCES.some((name) => options.env?.[name] !== undefined);
  const env: Record<string, string> = {
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: "silent",
    VALIDATE_RESPONSES: "true",
    DATABASE_URL: databaseFile,
    // A listening test app shares its event loop's thread with the test runner, whose work is not the server's load:
    // admission control runs only where a test injects the clock it reads (overrides.admissionClock).
    ADMISSION_CONTROL: options.overrides?.admissionClock === undefined ? "false" : "true",
    ...(!ownKeySource && { JWT_SECRET: TEST_SECRET }),
    ...(options.issuer !== undefined && { JWT_ISSUER: options.issuer }),
    ...(options.audience !== undefined && { JWT_AUDIENCE: options.audience }),
    ...(options.bodyLimitBytes !== undefined && { BODY_LIMIT_BYTES: String(options.bodyLimitBytes) }),
    ...options.env,
  };
  const config = loadConfig(env);
  const overrides = { ...(memory && { store: memory }), ...options.overrides };
  let running: Omit<ComposedPlantStore, "tracing"> & Partial<Listening>;
  try {
    running = options.listen ? await startPlantStore(config, overrides) : await composePlantStore(config, overrides);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const token = signToken({
    secret: env.JWT_SECRET ?? TEST_SECRET,
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
  });
  let stopped: Promise<void> | undefined;
  const close = async (closeOptions: { keepFiles?: boolean } = {}) => {
    stopped ??= (async () => {
      // A test may have closed the store itself already; the server is closed either way.
      const shutdown = running.shutdown("test finished").catch(() => undefined);
      // The test is over: idle keep-alive connections are not waited for (drain is what shutdown tests test).
      running.server?.closeAllConnections();
      await shutdown;
    })();
    await stopped;
    if (!closeOptions.keepFiles) rmSync(dir, { recursive: true, force: true });
  };
  tearDownWith(() => close());

  /** The rows the store holds: for SQLite, read from the file through a separate connection. */
  const rows = (): { id: bigint; name: string; tag: string | null }[] =>
    memory
      ? memory.rows()
      : querySqliteFile(
          databaseFile,
          (db) => db.prepare("SELECT id, name, tag FROM plants ORDER BY id").all() as never,
        );

  return {
    ...running,
    /** A valid bearer token when the server verifies with a secret (TEST_SECRET or the env's JWT_SECRET). */
    token,
    databaseFile,
    rows,
    rowCount: () => rows().length,
    auth: { Authorization: `Bearer ${token}` },
    /**
     * POST /plants with this body (JSON text exactly as written, or an object to serialise) and a bearer token:
     * this app's valid one unless `token` says otherwise.
     */
    post: (body: string | object, { token: bearer = token }: { token?: string } = {}) =>
      request(running.app)
        .post("/plants")
        .set("Authorization", `Bearer ${bearer}`)
        .set("Content-Type", "application/json")
        .send(typeof body === "string" ? body : JSON.stringify(body)),
    close,
  };
}

/** What `listen: true` adds. */
interface Listening {
  /** Where the API listens, e.g. http://127.0.0.1:41234. */
  url: string;
  server: Server;
  /** Where GET /metrics listens when METRICS_PORT is set. */
  metricsUrl?: string;
  metricsServer?: Server;
}

export interface TestApp extends Omit<ComposedPlantStore, "tracing"> {
  token: string;
  databaseFile: string;
  rows: () => { id: bigint; name: string; tag: string | null }[];
  rowCount: () => number;
  auth: { Authorization: string };
  post: (body: string | object, options?: { token?: string }) => request.Test;
  /** Shuts it down and removes its files (unless `keepFiles`); the end of the test, or of the file, does too. */
  close: (options?: { keepFiles?: boolean }) => Promise<void>;
}

export type ListeningTestApp = TestApp & Listening;

/** Starts test apps over shared options (merged with each call's, env merged too). */
export interface TestAppStarter {
  (options: TestServerOptions & { listen: true }): Promise<ListeningTestApp>;
  (options?: TestServerOptions): Promise<TestApp>;
}

/** startTestApp over options a test file shares (merged with each call's, env and overrides too). */
export function testApps(base: TestServerOptions = {}): TestAppStarter {
  return ((options: TestServerOptions = {}) =>
    startTestApp({
      ...base,
      ...options,
      env: { ...base.env, ...options.env },
      overrides: { ...base.overrides, ...options.overrides },
    })) as TestAppStarter;
}
