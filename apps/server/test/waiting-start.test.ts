import type { ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { ErrorCode, INT64_MAX, INT64_MIN } from "@plant-store/contract";
import pg from "pg";
import { expect, it } from "vitest";
import { signToken } from "../src/auth/sign-token.js";
import { freePort } from "./support/free-port.js";
import { createTestDatabase, describePostgres, type TestDatabase } from "./support/postgres.js";
import { logLines, runServerExpectingExit, type ServerProcess, startServerProcess } from "./support/server-process.js";
import { startTcpProxy } from "./support/tcp-proxy.js";
import { tearDownWith } from "@plant-store/test-support/teardown";
import { tempDir } from "@plant-store/test-support/temp-dir";

const SECRET = "waiting-start-secret-at-least-32-characters";
const TOKEN = signToken({ secret: SECRET });
// The lock Kysely's PostgreSQL migrator takes (pg_advisory_lock, kysely/dist/esm/dialect/postgres/postgres-adapter.js).
const KYSELY_MIGRATION_LOCK = "3853314791062309107";

const freshDatabase = createTestDatabase;
// The retry schedule's cap (STORE_OPEN_RETRY.maxMs): no wait between two attempts is longer.
const RETRY_CAP_MS = 1_000;
// How soon after the database accepts (or its lock is released) the server must be ready: the cap, and a margin
// for a slow host that only a hang or a far longer wait between attempts crosses.
const READY_WITHIN_MS = RETRY_CAP_MS + 5_000;

async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  // No admission control: what is checked is the store's readiness, not how loaded this host is.
  return startServerProcess(
    { JWT_SECRET: SECRET, ADMISSION_CONTROL: "false", ...env },
    { keepOutputChars: 256 * 1024, untilReady: false },
  );
}

/** A connection of the test's own holding the migration lock until it is released or the test ends. */
async function lockHolder(database: TestDatabase): Promise<pg.Client> {
  const holder = new pg.Client({ connectionString: database.url });
  tearDownWith(() => holder.end());
  await holder.connect();
  await holder.query(`SELECT pg_advisory_lock(${KYSELY_MIGRATION_LOCK})`);
  return holder;
}

const withPort = (database: TestDatabase, port: number) => database.url.replace(`:${database.port}/`, `:${port}/`);

const createPlant = (baseUrl: string, body: string) =>
  fetch(`${baseUrl}/plants`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body,
  });

/** While the store is not open: alive, not ready, and creates answered as in an outage. */
async function expectWaiting(baseUrl: string) {
  const health = await fetch(`${baseUrl}/healthz`);
  expect(health.status).toBe(200);
  const ready = await fetch(`${baseUrl}/readyz`);
  expect(ready.status).toBe(503);
  expect(await ready.json()).toMatchObject({ error: ErrorCode.StoreUnavailable });
  const created = await createPlant(baseUrl, '{"id": 1, "name": "Fern"}');
  expect(created.status).toBe(503);
  expect(created.headers.get("retry-after")).toBe("1");
  expect(await created.json()).toEqual({ error: ErrorCode.StoreUnavailable, message: expect.any(String) });
}

/** Polls `condition` until it holds; fails after 15 s (a start's own bound), naming `what`. */
async function until(what: string, condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await sleep(20);
  }
}

/** Polls GET /readyz until it answers 200; resolves with when it did. */
async function becameReadyAt(baseUrl: string): Promise<number> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if ((await fetch(`${baseUrl}/readyz`)).status === 200) return Date.now();
    await sleep(20);
  }
  throw new Error("the server never became ready");
}

/** The store conformance suite's checks (store-conformance.test.ts), over HTTP to the process and the rows it stored. */
async function expectConformance(baseUrl: string, database: TestDatabase) {
  const post = async (body: string) => {
    const res = await createPlant(baseUrl, body);
    return { status: res.status, body: await res.json() };
  };
  expect(await post('{"id": 1, "name": "Monstera", "tag": "tropical"}')).toEqual({
    status: 200,
    body: { name: "Monstera", tag: "tropical" },
  });
  expect((await post('{"tag": "tropical", "name": "Monstera", "id": 1}')).status).toBe(200);
  for (const conflict of [
    '{"id": 1, "name": "Rose", "tag": "tropical"}',
    '{"id": 1, "name": "Monstera"}',
    '{"id": 1, "name": "Monstera", "tag": ""}',
  ]) {
    expect(await post(conflict)).toEqual({
      status: 409,
      body: { error: ErrorCode.PlantIdConflict, message: expect.any(String) },
    });
  }
  for (const id of [INT64_MIN, INT64_MAX, 9007199254740993n])
    expect((await post(`{"id": ${id}, "name": "n${id}"}`)).status).toBe(200);
  expect((await post('{"id": 12}')).status).toBe(400);
  const together = await Promise.all(
    Array.from({ length: 20 }, () => post('{"id": 42, "name": "Basil", "tag": "herb"}')),
  );
  expect(together.map((res) => res.status)).toEqual(Array(20).fill(200));
  expect(await database.rows()).toEqual([
    { id: INT64_MIN, name: `n${INT64_MIN}`, tag: null },
    { id: 1n, name: "Monstera", tag: "tropical" },
    { id: 42n, name: "Basil", tag: "herb" },
    { id: 9007199254740993n, name: "n9007199254740993", tag: null },
    { id: INT64_MAX, name: `n${INT64_MAX}`, tag: null },
  ]);
}

describePostgres("a start that waits for its database (built server, real PostgreSQL)", () => {
  // The retry schedule (capped at 1 s) is read from the log; the readiness bounds are measured on a real process,
  // a real network hop and a real database, generous enough that only a hang or a long backoff crosses them.
  it("starts while PostgreSQL refuses connections; once the database accepts, it is ready within the retry cap and conforms", async () => {
    const database = await freshDatabase();
    const port = await freePort();
    const server = await startServer({ DATABASE_URL: withPort(database, port) });
    expect(logLines(server.stdout()).find((line) => line.msg === "plant store listening")).toMatchObject({
      ready: false,
    });
    await expectWaiting(server.baseUrl);
    const retries = () =>
      logLines(server.stdout()).filter((line) => line.msg === "store unavailable at start; retrying");
    await until("four refused attempts logged", () => retries().length >= 4);

    await startTcpProxy({ host: database.host, port: database.port }, { port });
    const acceptingAt = Date.now();
    const readyAt = await becameReadyAt(server.baseUrl);
    console.log(`waiting start, database refusing: ready ${readyAt - acceptingAt} ms after it accepted connections`);
    expect(readyAt - acceptingAt).toBeLessThan(READY_WITHIN_MS);

    const warnings = retries();
    expect(warnings.length).toBeGreaterThan(3);
    // Backing off, but never longer than the cap between two attempts.
    expect(Math.max(...warnings.map((line) => Number(line.retryInMs)))).toBeLessThanOrEqual(RETRY_CAP_MS);
    expect(warnings.map((line) => line.attempt)).toEqual(warnings.map((_, index) => index + 1));
    for (const line of warnings)
      expect(line).toMatchObject({ level: 40, reason: expect.stringMatching(/ECONNREFUSED/) });
    expect(logLines(server.stdout()).find((line) => line.msg === "store open: ready")).toMatchObject({
      attempts: warnings.length + 1,
    });
    // The readiness checks while waiting add no warning of their own: each failure is logged once, by the retries.
    expect(
      logLines(server.stdout()).filter(
        (line) => line.level === 40 && line.msg !== "store unavailable at start; retrying",
      ),
    ).toEqual([]);
    await expectConformance(server.baseUrl, database);
  });

  it("starts while another connection holds the migration lock: alive while it is held, ready soon after the release, and conforms", async () => {
    const database = await freshDatabase();
    const holder = await lockHolder(database);

    // Known in advance: the listening line waits up to 2 s for the first attempt, and this one is blocked on the lock.
    const port = await freePort();
    const starting = startServer({ DATABASE_URL: database.url, PORT: String(port) });
    const baseUrl = `http://127.0.0.1:${port}`;
    let alive: Response | undefined;
    await until("GET /healthz answered", async () => {
      alive = await fetch(`${baseUrl}/healthz`).catch(() => undefined);
      return alive !== undefined;
    });
    expect(alive?.status).toBe(200);
    const server = await starting;
    await expectWaiting(server.baseUrl);
    // Still held: the attempt is waiting on it, and says so once.
    await until("the wait on the lock logged", () =>
      logLines(server.stdout()).some((line) => String(line.msg).startsWith("store still opening")),
    );

    await holder.query(`SELECT pg_advisory_unlock(${KYSELY_MIGRATION_LOCK})`);
    const releasedAt = Date.now();
    const readyAt = await becameReadyAt(server.baseUrl);
    console.log(`waiting start, migration lock held: ready ${readyAt - releasedAt} ms after its release`);
    expect(readyAt - releasedAt).toBeLessThan(READY_WITHIN_MS);
    // No failure to log while it waits on the lock, but the wait itself is said once, and the end of it.
    const waitLines = logLines(server.stdout()).filter(
      (line) => line.msg === "store still opening: waiting on the database or its migration lock",
    );
    expect(waitLines).toEqual([expect.objectContaining({ attempt: 1 })]);
    expect(logLines(server.stdout()).find((line) => line.msg === "store open: ready")).toMatchObject({ attempts: 1 });
    await expectConformance(server.baseUrl, database);
  });

  it.each([
    ["PostgreSQL refuses connections", "refused"],
    ["the migration lock is held", "locked"],
  ] as const)("SIGTERM while %s shuts down cleanly with exit 0", async (_case, how) => {
    const database = await freshDatabase();
    let url = withPort(database, await freePort());
    if (how === "locked") {
      await lockHolder(database);
      url = database.url;
    }
    const server = await startServer({ DATABASE_URL: url });
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    await server.outputClosed;
    expect(server.stderr()).toBe("");
    expect(server.stdout()).toMatch(/shutting down/);
  });

  it("SIGTERM before it has said where it listens (the first attempt still blocked on the lock) shuts down with exit 0", async () => {
    const database = await freshDatabase();
    await lockHolder(database);
    const port = await freePort();
    let child: ChildProcess | undefined;
    const exited = new Promise<number | null>((resolve) => {
      const starting = startServerProcess(
        { JWT_SECRET: SECRET, DATABASE_URL: database.url, PORT: String(port) },
        { onSpawn: (spawned) => (child = spawned.once("exit", resolve)), untilReady: false },
      );
      starting.catch(() => undefined);
    });
    let alive: Response | undefined;
    await until("GET /healthz answered", async () => {
      alive = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
      return alive !== undefined;
    });
    expect(alive?.status).toBe(200);
    child!.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it.each([
    [
      "a role PostgreSQL refuses",
      (database: TestDatabase) => database.url.replace(/\/\/[^@]+@/, "//no_such_role@"),
      /^plant store failed to start: DATABASE_URL postgres:\/\/no_such_role@.+: role "no_such_role" does not exist$/,
    ],
    [
      "a database that does not exist",
      (database: TestDatabase) => `${database.url}_missing`,
      /^plant store failed to start: DATABASE_URL postgres:\/\/.+_missing: database "\w+_missing" does not exist$/,
    ],
  ])("with %s exits 1 at once with one log line naming DATABASE_URL", async (_case, urlFor, message) => {
    const database = await freshDatabase();
    const result = await runServerExpectingExit({ JWT_SECRET: SECRET, DATABASE_URL: urlFor(database) });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("");
    expect(startFailureLines(result.stdout)).toEqual([
      expect.objectContaining({ level: 60, setting: "DATABASE_URL", msg: expect.stringMatching(message) }),
    ]);
  });

  it("with a malformed URL exits 1 before anything starts, with one line on stderr naming DATABASE_URL", async () => {
    const database = await freshDatabase();
    const url = database.url.replace(`:${database.port}/`, ":99999/");
    const result = await runServerExpectingExit({ JWT_SECRET: SECRET, DATABASE_URL: url });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^invalid configuration: DATABASE_URL: ".+:99999\/\w+" is not a valid URL; expected /,
    );
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
  });
});

/** The lines a start that failed logged at warn or above: its one failure line, nothing else. */
const startFailureLines = (stdout: string) =>
  stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => Number(line.level) >= 40);

it("with an SQLite path that cannot be created exits 1 at once with one log line naming DATABASE_URL", async () => {
  const dir = tempDir("plant-store-waiting-");
  writeFileSync(join(dir, "a-file"), "");
  const result = await runServerExpectingExit({ JWT_SECRET: SECRET, DATABASE_URL: join(dir, "a-file", "plants.db") });
  expect(result.code).toBe(1);
  expect(result.stderr).toBe("");
  expect(startFailureLines(result.stdout)).toEqual([
    expect.objectContaining({
      setting: "DATABASE_URL",
      msg: expect.stringMatching(
        /^plant store failed to start: DATABASE_URL \/.+\/a-file\/plants\.db: .*(ENOTDIR|EEXIST)/,
      ),
    }),
  ]);
});
