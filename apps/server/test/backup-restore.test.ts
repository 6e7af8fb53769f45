import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { Agent, request } from "node:http";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { signToken } from "../src/auth/sign-token.js";
import { runCli, startCli } from "./support/cli-process.js";
import { plantBody, postPlant, type ServerProcess, startServerOnFile } from "./support/server-process.js";
import { tempDir } from "@plant-store/test-support/temp-dir";
import { fillSqliteStore } from "../src/testing/fill-sqlite-store.js";
import { querySqliteFile } from "@plant-store/test-support/sqlite-file";
import { TEST_SECRET } from "./support/test-server.js";

// The load: creates offered at a fixed rate, open loop (each sent on time whether or not earlier ones were
// answered), each with a fresh id. What is tested is which acknowledged creates a backup holds, not how many the
// host could take: the rate reached and the creates' latency during a backup are the benchmark's business
// (`pnpm bench -- --mode backup`).
const RATE_PER_SECOND = 1_250;
const TICK_MS = 10;
// A server slower than the rate on a busy host gets at most this many creates waiting, not an ever longer queue.
const MAX_IN_FLIGHT = 512;
// Plants stored before the load starts: a store of several backup steps (1 MiB each), so writes land
// between the steps of the backup taken under load.
const PREFILLED = 300_000;

const token = signToken({ secret: TEST_SECRET });

const startServer = (databaseFile: string) => startServerOnFile(databaseFile, { keepOutputChars: 64 * 1024 });

/** Polls `condition` until it holds; fails after 20 s, naming `what`. */
async function until(what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** POSTs a create on one of `agent`'s keep-alive connections; resolves with the status once the answer is read. */
function postOn(agent: Agent, server: ServerProcess, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.baseUrl}/plants`, {
      method: "POST",
      agent,
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
      },
    });
    req.on("response", (res) => res.resume().on("end", () => resolve(res.statusCode!)));
    req.on("error", reject);
    req.end(body);
  });
}

/** Creates at RATE_PER_SECOND until stopped; `acknowledged` holds each id whose 200 has arrived, in order. */
function steadyCreates(server: ServerProcess, firstId: number) {
  // node:http on a bounded set of keep-alive connections: the cheapest client, so the rate is the server's.
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const acknowledged: number[] = [];
  const failures: string[] = [];
  let nextId = firstId;
  let skipped = 0;
  let inFlight = 0;
  const startedAt = performance.now();
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - startedAt) * RATE_PER_SECOND) / 1000) - (nextId - firstId) - skipped;
    for (let i = 0; i < due; i++) {
      if (inFlight >= MAX_IN_FLIGHT) {
        skipped += 1;
        continue;
      }
      const id = nextId++;
      inFlight += 1;
      postOn(agent, server, plantBody(id, `plant ${id}`))
        .then((status) => {
          if (status === 200) acknowledged.push(id);
          // 503 is the server shedding load it cannot take (docs/api.md): not acknowledged, not a fault.
          else if (status !== 503) failures.push(`${id}: ${status}`);
        })
        // The server killed under the load: those creates were never acknowledged.
        .catch(() => undefined)
        .finally(() => {
          inFlight -= 1;
        });
    }
  }, TICK_MS);
  return {
    acknowledged,
    failures,
    /** Stops sending. */
    stop: () => {
      clearInterval(timer);
      agent.destroy();
    },
  };
}

/** Plants 1..count, every other one tagged, as if clients had created them. */
function* prefilled(count: number) {
  for (let id = 1; id <= count; id++) yield { id, name: `plant ${id}`, tag: id % 2 === 0 ? "prefilled" : null };
}

const integrityOf = (file: string) =>
  querySqliteFile(file, (db) =>
    (db.prepare("PRAGMA integrity_check").all() as { integrity_check: string }[])
      .map((row) => row.integrity_check)
      .join("; "),
  );

/** Runs `task` over `items`, `width` at a time. */
async function inParallel<T>(items: T[], width: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await task(items[next++]!);
    }),
  );
}

describe("backup and restore through real processes", () => {
  it("a backup taken under steady creates, restored after kill -9 and a lost data folder, holds every plant acknowledged before it began", async () => {
    const dir = tempDir("plant-store-backup-");
    const databaseFile = join(dir, "data", "plants.db");
    const snapshot = join(dir, "backups", "plants.db");
    mkdirSync(join(dir, "backups"));
    await fillSqliteStore(databaseFile, prefilled(PREFILLED));
    let server = await startServer(databaseFile);

    const load = steadyCreates(server, PREFILLED + 1);
    await until("creates acknowledged before the backup", () => load.acknowledged.length >= 100);
    const acknowledgedBefore = [...load.acknowledged];
    const backedUp = await runCli(["backup", snapshot], { DATABASE_URL: databaseFile });
    const acknowledgedDuring = load.acknowledged.length - acknowledgedBefore.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    server.child.kill("SIGKILL");
    await server.exited;
    load.stop();

    expect(backedUp.stderr).toBe("");
    expect(backedUp.code).toBe(0);
    const [, plantsInSnapshot] =
      /^backed up (\d+) plants, [\d.]+ [kMG]?B, in [\d.]+ s to (.+)\n$/.exec(backedUp.stdout) ?? [];
    expect(Number(plantsInSnapshot)).toBeGreaterThanOrEqual(PREFILLED + acknowledgedBefore.length);
    // Several 1 MiB steps, with creates committed between them, and yet it finished.
    expect(statSync(snapshot).size).toBeGreaterThan(4 * 1024 * 1024);
    expect(acknowledgedDuring).toBeGreaterThan(0);
    expect(load.failures).toEqual([]);
    expect(readdirSync(join(dir, "backups"))).toEqual(["plants.db"]);

    rmSync(join(dir, "data"), { recursive: true });
    const restored = await runCli(["restore", snapshot], { DATABASE_URL: databaseFile });
    expect(restored.stderr).toBe("");
    expect(restored).toMatchObject({
      code: 0,
      stdout:
        `restored ${plantsInSnapshot} plants (schema version 2, this server's) from ${snapshot} to ${databaseFile}\n` +
        `there was no store at ${databaseFile}: this is a new one; check that the server's DATABASE_URL names it\n`,
    });
    expect(readdirSync(join(dir, "data"))).toEqual(["plants.db"]);
    expect(integrityOf(databaseFile)).toBe("ok");

    server = await startServer(databaseFile);
    const problems: string[] = [];
    const sample = [1, PREFILLED / 2, PREFILLED, ...acknowledgedBefore];
    await inParallel(sample, 16, async (id) => {
      const name = `plant ${id}`;
      const body =
        id <= PREFILLED
          ? `{"id": ${id}, "name": "${name}"${id % 2 === 0 ? ', "tag": "prefilled"' : ""}}`
          : plantBody(id, name);
      const replay = await postPlant(server, token, body);
      if (replay.status !== 200) problems.push(`replay of ${id}: ${replay.status} ${await replay.text()}`);
      else await replay.text();
      const other = await postPlant(server, token, plantBody(id, "another plant"));
      if (other.status !== 409) problems.push(`another body for ${id}: ${other.status} ${await other.text()}`);
      else await other.text();
    });
    expect(problems).toEqual([]);
  }, 60_000);

  it("scheduled: SIGTERM, mid-snapshot or between two, exits 0 and leaves only complete snapshots", async () => {
    const dir = tempDir("plant-store-backup-");
    const databaseFile = join(dir, "data", "plants.db");
    await fillSqliteStore(databaseFile, prefilled(PREFILLED));
    await startServer(databaseFile);
    const backups = join(dir, "backups");
    // 0.0167 minutes (1 s), the shortest interval: the signal may find a snapshot under way.
    const scheduled = startCli(["backup", "--dir", backups, "--every", "0.0167"], { DATABASE_URL: databaseFile });
    await scheduled.waitForStdout(/^backed up /m);
    await new Promise((resolve) => setTimeout(resolve, 100));
    scheduled.child.kill("SIGTERM");
    expect(await scheduled.exited).toBe(0);
    expect(scheduled.stdout()).toMatch(/\nstopped\n$/);
    const left = readdirSync(backups);
    expect(left.filter((name) => !/^plants-\d{8}T\d{6}Z\.db$/.test(name))).toEqual([]);
    for (const name of left) expect(integrityOf(join(backups, name))).toBe("ok");
  });
});
