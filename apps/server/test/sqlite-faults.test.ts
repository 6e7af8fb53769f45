import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statfsSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { ErrorCode } from "@plant-store/contract";
import request from "supertest";
import { describe, expect, it, vi } from "vitest";
import { classifySqliteFailure, SqliteWriterError } from "../src/store/sqlite/sqlite-errors.js";
import { SqlitePlantStore, type SqliteStoreOptions } from "../src/store/sqlite/sqlite-plant-store.js";
import { StoreUnavailableError } from "../src/store/store-unavailable.js";
import type { PlantRow } from "./support/postgres.js";
import { appOver } from "./support/store-app.js";
import { querySqliteFile } from "@plant-store/test-support/sqlite-file";
import { tearDownWith } from "@plant-store/test-support/teardown";
import { tempDir } from "@plant-store/test-support/temp-dir";

/** The names of this process's threads (Linux keeps the first 15 characters of each). */
function threadNames(): string[] {
  return readdirSync("/proc/self/task").flatMap((tid) => {
    try {
      return [readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim()];
    } catch {
      return []; // the thread ended between the listing and the read
    }
  });
}

/** Blocks the main thread (no event-loop turn) until `condition` holds; fails after 10 s. */
function blockUntil(condition: () => boolean): void {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`still waiting for ${condition}`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
  }
}

/** Why a tiny tmpfs cannot be mounted here (mounting needs root or CAP_SYS_ADMIN), or undefined when it can. */
function tmpfsUnavailableReason(): string | undefined {
  const probe = mkdtempSync(join(tmpdir(), "plant-store-mount-probe-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe], { stdio: "pipe" });
    execFileSync("umount", [probe], { stdio: "pipe" });
    return undefined;
  } catch (error) {
    const { stderr, message } = error as { stderr?: Buffer; message: string };
    return `cannot mount a tmpfs (needs root or CAP_SYS_ADMIN): ${stderr?.toString().trim() || message}`;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}
const tmpfsUnavailable = tmpfsUnavailableReason();
if (tmpfsUnavailable) console.warn(`skipping the full-disk test: ${tmpfsUnavailable}`);
// File permissions do not stop root, so the read-only test needs another user; the full disk runs as root.
const permissionsIgnored = process.getuid?.() === 0 ? "root writes whatever the permissions say" : undefined;
if (permissionsIgnored) console.warn(`skipping the read-only file test: ${permissionsIgnored}`);

/** The error a promise rejects with (the test fails if it resolves). */
async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => expect.fail("expected a rejection"),
    (error: Error) => error,
  );
}

/** StoreUnavailableError caused by SQLite's `code`. */
async function expectUnavailable(promise: Promise<unknown>, code: string): Promise<void> {
  const error = await rejectionOf(promise);
  expect(error).toBeInstanceOf(StoreUnavailableError);
  expect(error.cause).toBeInstanceOf(SqliteWriterError);
  expect((error.cause as SqliteWriterError).code).toBe(code);
}

/** A store on `file`, the real app over it, and the rows really in the file (read by another connection). */
async function openFixture(file: string, options?: SqliteStoreOptions) {
  const store = await SqlitePlantStore.open(file, options);
  tearDownWith(() => store.close());
  const served = await appOver(store);
  const { app, auth } = served;
  return {
    store,
    post: (id: number) =>
      request(app)
        .post("/plants")
        .set(auth)
        .set("Content-Type", "application/json")
        .send(`{"id": ${id}, "name": "plant ${id}"}`),
    readyz: () => request(app).get("/readyz"),
    ids: () =>
      querySqliteFile(file, (db) =>
        (db.prepare("SELECT id FROM plants ORDER BY id").all() as unknown as PlantRow[]).map((row) => row.id),
      ),
  };
}

type Fixture = Awaited<ReturnType<typeof openFixture>>;

/** What a client and a load balancer see during a fault: 503 StoreUnavailable with Retry-After, and not ready. */
async function expectHttpUnavailable(fixture: Fixture, id: number): Promise<void> {
  const res = await fixture.post(id);
  expect(res.status).toBe(503);
  expect(res.body).toEqual({ error: ErrorCode.StoreUnavailable, message: expect.any(String) });
  expect(res.headers["retry-after"]).toBe("1");
  const ready = await fixture.readyz();
  expect(ready.status).toBe(503);
  expect(ready.body).toEqual({ error: ErrorCode.StoreUnavailable, message: "the store is unreachable" });
}

/** After the fault: creates succeed again and the store is ready. */
async function expectHealed(fixture: Fixture, id: number): Promise<void> {
  await expect(fixture.store.ping()).resolves.toBeUndefined();
  expect((await fixture.post(id)).status).toBe(200);
  expect((await fixture.readyz()).status).toBe(200);
}

const scratchDir = () => tempDir("plant-store-faults-");

describe("SQLite faults answer 503 StoreUnavailable, store nothing, and heal", () => {
  it("another connection holding the write lock past busy_timeout", async () => {
    const file = join(scratchDir(), "plants.db");
    const fixture = await openFixture(file, { busyTimeoutMs: 50 });
    await fixture.store.create({ id: 1n, name: "before" });

    const holder = new DatabaseSync(file);
    holder.exec("BEGIN IMMEDIATE");
    try {
      await expectUnavailable(fixture.store.create({ id: 2n, name: "blocked" }), "SQLITE_BUSY");
      await expectUnavailable(fixture.store.ping(), "SQLITE_BUSY");
      await expectHttpUnavailable(fixture, 3);
    } finally {
      holder.exec("ROLLBACK");
      holder.close();
    }

    expect(fixture.ids()).toEqual([1n]);
    await expectHealed(fixture, 4);
    expect(fixture.ids()).toEqual([1n, 4n]);
  });

  it.skipIf(tmpfsUnavailable !== undefined)(
    `a full disk: a database on a 1 MiB tmpfs filled up${tmpfsUnavailable ? ` (skipped: ${tmpfsUnavailable})` : ""}`,
    async () => {
      const mountPoint = scratchDir();
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint]);
      tearDownWith(() => {
        execFileSync("umount", [mountPoint]);
      });
      const fixture = await openFixture(join(mountPoint, "plants.db"));
      await fixture.store.create({ id: 1n, name: "before" });

      const filler = join(mountPoint, "filler");
      const { bavail, bsize } = statfsSync(mountPoint);
      writeFileSync(filler, Buffer.alloc(bavail * bsize));
      expect(statfsSync(mountPoint).bavail).toBe(0);

      // Three creates of one turn are one batch, one transaction: all fail, none is stored.
      const batch = [2n, 3n, 4n].map((id) => fixture.store.create({ id, name: `plant ${id}` }));
      for (const create of batch) await expectUnavailable(create, "SQLITE_FULL");
      await expectUnavailable(fixture.store.ping(), "SQLITE_FULL");
      await expectHttpUnavailable(fixture, 5);
      expect(fixture.ids()).toEqual([1n]);

      rmSync(filler);
      await expectHealed(fixture, 6);
      expect(fixture.ids()).toEqual([1n, 6n]);
    },
  );

  it.skipIf(permissionsIgnored !== undefined)(
    `a database file made read-only before the store opens it${permissionsIgnored ? ` (skipped: ${permissionsIgnored})` : ""}`,
    async () => {
      const file = join(scratchDir(), "plants.db");
      const earlier = await SqlitePlantStore.open(file);
      await earlier.create({ id: 1n, name: "before" });
      await earlier.close();
      chmodSync(file, 0o444);
      const fixture = await openFixture(file);

      await expectUnavailable(fixture.store.create({ id: 2n, name: "refused" }), "SQLITE_READONLY");
      await expectUnavailable(fixture.store.ping(), "SQLITE_READONLY");
      await expectHttpUnavailable(fixture, 3);
      expect(fixture.ids()).toEqual([1n]);

      // SQLite created the -wal and -shm files with the database's mode: all three are made writable again.
      for (const suffix of ["", "-wal", "-shm"]) chmodSync(`${file}${suffix}`, 0o644);
      await expectHealed(fixture, 4);
      expect(fixture.ids()).toEqual([1n, 4n]);
    },
  );

  it("a writer thread that dies is replaced: creates meanwhile answer 503, then succeed", async () => {
    const fixture = await openFixture(join(scratchDir(), "plants.db"));
    await fixture.store.create({ id: 1n, name: "before" });

    // Only the store's restart delay is faked, so the requests below surely meet the thread gone.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      await fixture.store.terminateWriterThread();
      await expect(fixture.store.create({ id: 2n, name: "meanwhile" })).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(fixture.store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
      await expectHttpUnavailable(fixture, 3);
      vi.runOnlyPendingTimers();
    } finally {
      vi.useRealTimers();
    }

    await vi.waitFor(() => fixture.store.ping(), { timeout: 10_000, interval: 20 });
    await expectHealed(fixture, 4);
    expect(fixture.ids()).toEqual([1n, 4n]);
  });
});

describe("which SQLite errors mean the store is unavailable", () => {
  it.each([
    "SQLITE_BUSY",
    "SQLITE_BUSY_SNAPSHOT",
    "SQLITE_LOCKED",
    "SQLITE_IOERR",
    "SQLITE_IOERR_FSYNC",
    "SQLITE_IOERR_WRITE",
    "SQLITE_FULL",
    "SQLITE_READONLY",
    "SQLITE_READONLY_DBMOVED",
    "SQLITE_CANTOPEN",
  ])("%s: StoreUnavailableError", (code) => {
    expect(classifySqliteFailure({ message: "from SQLite", code })).toBeInstanceOf(StoreUnavailableError);
  });

  it.each(["SQLITE_CONSTRAINT_PRIMARYKEY", "SQLITE_ERROR", "SQLITE_CORRUPT", "SQLITE_MISMATCH", undefined])(
    "%s: the error itself (a bug or a damaged file is not a retryable outage)",
    (code) => {
      const error = classifySqliteFailure({ message: "from SQLite", code });
      expect(error).not.toBeInstanceOf(StoreUnavailableError);
      expect(error).toMatchObject({ name: "SqliteWriterError", code, message: "from SQLite" });
    },
  );
});

describe("opening the store", () => {
  it("a file that is not a SQLite database fails the opening with SQLite's own error, from the migration thread", async () => {
    const file = join(scratchDir(), "plants.db");
    writeFileSync(file, "not a database, but long enough for SQLite to read its header and refuse it".repeat(20));
    const error = await rejectionOf(SqlitePlantStore.open(file));
    expect(error).toBeInstanceOf(SqliteWriterError);
    expect(error).toMatchObject({ code: "SQLITE_NOTADB", message: "file is not a database" });
  });

  // Linux lists the process's threads by name in /proc: the busy main thread watches the migration thread there.
  it.skipIf(!existsSync("/proc/self/task"))(
    "opens when the migration thread's message and its exit reach a busy main thread together",
    async () => {
      const opening = SqlitePlantStore.open(join(scratchDir(), "plants.db"));
      // The thread has started; the main thread stays busy until it has migrated, posted and ended, so Node drains
      // its message and emits its 'exit' in one go. A store waiting for 'exit' only after the message never opened.
      const migrating = () => threadNames().includes("sqlite-migratio");
      blockUntil(migrating);
      blockUntil(() => !migrating());
      const store = await opening;
      tearDownWith(() => store.close());
      await expect(store.create({ id: 1n, name: "opened" })).resolves.toMatchObject({ kind: "created" });
    },
  );

  // Linux names a thread in /proc; elsewhere there is nothing to read.
  it.skipIf(!existsSync("/proc/self/task"))(
    "runs the writer on an OS thread named after it, so top -H and /proc show its CPU apart",
    async () => {
      const store = await SqlitePlantStore.open(join(scratchDir(), "plants.db"));
      tearDownWith(() => store.close());
      // Linux keeps the first 15 characters of "sqlite-writer-thread".
      expect(threadNames()).toContain("sqlite-writer-t");
    },
  );

  it("migrates a new file once, and opens a migrated one again without changing it", async () => {
    const file = join(scratchDir(), "plants.db");
    const first = await SqlitePlantStore.open(file);
    await first.create({ id: 1n, name: "kept" });
    await first.close();
    const second = await SqlitePlantStore.open(file);
    tearDownWith(() => second.close());
    querySqliteFile(file, (db) => {
      const applied = db
        .prepare("SELECT name FROM kysely_migration ORDER BY name")
        .all()
        .map((row) => row.name);
      expect(applied).toEqual(["0001_create_plants", "0002_create_writer_probe"]);
      expect(db.prepare("SELECT name FROM plants WHERE id = 1").get()?.name).toBe("kept");
    });
  });
});
