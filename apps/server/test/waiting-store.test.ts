import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { setTimeout as realTimePasses } from "node:timers/promises";
import { afterEach, describe, expect, it, vi } from "vitest";
import { isTransientOpenError } from "../src/store/open-store.js";
import { SqlitePlantStore } from "../src/store/sqlite/sqlite-plant-store.js";
import { StoreLock } from "../src/store/sqlite/store-lock.js";
import { StoreInUseError } from "../src/store/store-in-use.js";
import { StoreUnavailableError } from "../src/store/store-unavailable.js";
import { IN_USE_LOG_EVERY_MS, retryDelayMs, STORE_OPEN_RETRY, WaitingStore } from "../src/store/waiting-store.js";
import { capturingLogger } from "./support/log-capture.js";
import { tearDownWith } from "@plant-store/test-support/teardown";
import { tempDir } from "@plant-store/test-support/temp-dir";

afterEach(() => {
  vi.useRealTimers();
});

/** A WaitingStore over a real SQLite file, with jitter fixed at its top (each wait is the whole step). */
function waitingSqliteStore(filename: string) {
  const log = capturingLogger();
  let attempts = 0;
  const store = new WaitingStore({
    open: () => {
      attempts++;
      // A short busy timeout: a locked file fails the attempt quickly, and the retry schedule takes over.
      return SqlitePlantStore.open(filename, { busyTimeoutMs: 20, logger: log.logger });
    },
    isTransient: (error) => isTransientOpenError("sqlite", error),
    logger: log.logger,
    random: () => 1,
  });
  tearDownWith(() => store.close());
  const warnings = () => log.lines().filter((line) => line.msg === "store unavailable at start; retrying");
  return { store, log, warnings, attempts: () => attempts };
}

/** Another process's connection holding the SQLite file's write lock, as a migration elsewhere would. */
function lockDatabase(filename: string): () => void {
  const holder = new DatabaseSync(filename);
  holder.exec("CREATE TABLE IF NOT EXISTS held (x); BEGIN EXCLUSIVE; INSERT INTO held VALUES (1)");
  return () => {
    holder.exec("ROLLBACK");
    holder.close();
  };
}

/**
 * Moves the fake clock (the waits between attempts) 50 ms at a time until `condition` holds. The attempts
 * themselves run on SQLite threads, which the fake clock does not drive: each step also lets them work.
 */
async function runUntil(condition: () => boolean): Promise<void> {
  for (let step = 0; step < 400 && !condition(); step++) {
    await vi.advanceTimersByTimeAsync(50);
    await realTimePasses(10);
  }
  expect(condition()).toBe(true);
}

describe("retryDelayMs: capped exponential backoff with equal jitter", () => {
  it("doubles from 100 ms up to 1 s, each wait between half the step and the whole step", () => {
    const steps = [1, 2, 3, 4, 5, 6, 20].map((attempt) => retryDelayMs(attempt, STORE_OPEN_RETRY, () => 1));
    expect(steps).toEqual([100, 200, 400, 800, 1000, 1000, 1000]);
    const lowest = [1, 2, 3, 4, 5, 20].map((attempt) => retryDelayMs(attempt, STORE_OPEN_RETRY, () => 0));
    expect(lowest).toEqual([50, 100, 200, 400, 500, 500]);
  });
});

describe("WaitingStore: opening the store in the background", () => {
  it("answers StoreUnavailable while the file is locked, retries on the schedule with one warn per failure, then opens without a restart", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const filename = join(tempDir("plant-store-waiting-"), "plants.db");
    const unlock = lockDatabase(filename);
    const { store, log, warnings, attempts } = waitingSqliteStore(filename);

    await runUntil(() => warnings().length >= 3);
    await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.create({ id: 1n, name: "Fern" })).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(store.state).toMatchObject({ kind: "retrying", reason: expect.stringMatching(/locked|busy/i) });
    // One warn line per failed attempt, each with the reason and the wait that follows it.
    expect(warnings().map((line) => line.attempt)).toEqual(warnings().map((_, index) => index + 1));
    expect(
      warnings()
        .slice(0, 3)
        .map((line) => line.retryInMs),
    ).toEqual([100, 200, 400]);
    expect(warnings()[0]).toMatchObject({ level: 40, attempt: 1, reason: expect.stringMatching(/locked|busy/i) });

    unlock();
    await runUntil(() => store.state.kind === "open");
    expect(store.state).toEqual({ kind: "open", attempts: attempts() });
    await store.ping();
    expect(await store.create({ id: 1n, name: "Fern" })).toMatchObject({ kind: "created" });
    expect(log.lines().at(-1)).toMatchObject({ msg: "store open: ready", attempts: attempts() });
  });

  it("waits while another store holds the file, saying so once and then every 30 s, and opens once it lets go", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const filename = join(tempDir("plant-store-waiting-"), "plants.db");
    // The holder is a connection of this process, as another server's would be of its own.
    const holder = StoreLock.acquire(filename);
    const { store, log, warnings, attempts } = waitingSqliteStore(filename);
    const inUseLines = () => log.lines().filter((line) => String(line.msg).includes("held by another process"));

    // Another process's lock fails an attempt at once, on no thread: the fake clock alone drives the wait.
    for (let second = 0; second < 65; second++) await vi.advanceTimersByTimeAsync(1_000);
    expect(attempts()).toBeGreaterThan(60);
    expect(IN_USE_LOG_EVERY_MS).toBe(30_000);
    expect(inUseLines()).toEqual(
      [0, 1, 2].map(() =>
        expect.objectContaining({
          level: 40,
          holderPid: process.pid,
          msg: `SQLite store ${filename} is held by another process (pid ${process.pid}); waiting for it to let go`,
        }),
      ),
    );
    const waited = inUseLines().map((line) => Number(line.waitedMs));
    expect(waited[1]! - waited[0]!).toBeGreaterThanOrEqual(IN_USE_LOG_EVERY_MS);
    expect(waited[2]! - waited[1]!).toBeGreaterThanOrEqual(IN_USE_LOG_EVERY_MS);
    expect(warnings()).toEqual([]);
    expect(store.state).toMatchObject({ kind: "retrying", reason: expect.stringMatching(/held by another process/) });
    await expect(store.create({ id: 1n, name: "Fern" })).rejects.toBeInstanceOf(StoreUnavailableError);

    holder.release();
    await runUntil(() => store.state.kind === "open");
    expect(await store.create({ id: 1n, name: "Fern" })).toMatchObject({ kind: "created" });
    expect(log.lines().at(-1)).toMatchObject({ msg: "store open: ready", attempts: attempts() });
  });

  it("names the holder's host when it is another one: in a cluster each pod has its own pids", async () => {
    const filename = join(tempDir("plant-store-waiting-"), "plants.db");
    // A lock file as a server in another pod leaves it, held by a connection of this test's.
    const holder = new DatabaseSync(`${filename}-lock`);
    tearDownWith(() => holder.close());
    holder.exec(
      "CREATE TABLE holder (pid INTEGER NOT NULL, host TEXT NOT NULL); INSERT INTO holder VALUES (1, 'plant-store-7f9c-x2')",
    );
    holder.exec("BEGIN IMMEDIATE");
    const error = await SqlitePlantStore.open(filename).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(StoreInUseError);
    expect(error).toMatchObject({
      holderPid: 1,
      message: `SQLite store ${filename} is held by another process (pid 1 on plant-store-7f9c-x2)`,
    });
    expect(isTransientOpenError("sqlite", error)).toBe(true);
  });

  it("does not retry a store that cannot be created: the state is failed, with the error, after one attempt", async () => {
    const dir = tempDir("plant-store-waiting-");
    writeFileSync(join(dir, "a-file"), "");
    const { store, warnings, attempts } = waitingSqliteStore(join(dir, "a-file", "plants.db"));
    const failed = await store.until((state) => state.kind !== "opening");
    expect(failed).toEqual({
      kind: "failed",
      error: expect.objectContaining({ code: expect.stringMatching(/ENOTDIR|EEXIST/) }),
    });
    expect(store.state).toBe(failed);
    expect(attempts()).toBe(1);
    expect(warnings()).toEqual([]);
  });

  it("stops retrying when closed while waiting (SIGTERM before the database came up)", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const filename = join(tempDir("plant-store-waiting-"), "plants.db");
    const unlock = lockDatabase(filename);
    const { store, attempts } = waitingSqliteStore(filename);
    await runUntil(() => attempts() >= 2);
    await store.close();
    const attemptsAtClose = attempts();
    unlock();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(attempts()).toBe(attemptsAtClose);
    expect(store.state).toEqual({ kind: "closed" });
  });
});
