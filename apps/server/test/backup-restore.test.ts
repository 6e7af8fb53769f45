import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { signToken } from "../src/auth/sign-token.js";
import { runCli, startCli } from "./support/cli-process.js";
import { type ServerProcess, startServerProcess } from "./support/server-process.js";
import { tempDir } from "./support/temp-dir.js";
import { fillSqliteStore } from "../src/testing/fill-sqlite-store.js";
import { querySqliteFile } from "./support/sqlite-file.js";
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

function startServer(databaseFile: string): Promise<ServerProcess> {
  return startServerProcess(
    // Every create and replay served, not refused on a busy test machine.
    {
      DATABASE_URL: databaseFile,
      JWT_SECRET: TEST_SECRET,
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      SHUTDOWN_DELAY_MS: "0",
      ADMISSION_CONTROL: "false",
    },
    { keepOutputChars: 64 * 1024 },
  );
}

/** Polls `condition` until it holds; fails after 20 s, naming `what`. */
async function until(what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const plantBody = (id: number, name: string) => `{"id": ${id}, "name": "${name}"}`;

const post = (server: ServerProcess, body: string) =>
  fetch(`${server.baseUrl}/plants`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body,
  });

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
      const replay = await post(server, body);
      if (replay.status !== 200) problems.push(`replay of ${id}: ${replay.status} ${await replay.text()}`);
      else await replay.text();
      const other = await post(server, plantBody(id, "another plant"));
      if (other.status !== 409) problems.push(`another body for ${id}: ${other.status} ${await other.text()}`);
      else await other.text();
    });
    expect(problems).toEqual([]);
  }, 60_000);

  it("scheduled: a snapshot at start and every --every minutes into --dir, the newest --keep kept, SIGTERM stops it with exit 0", async () => {
    const dir = tempDir("plant-store-backup-");
    const databaseFile = join(dir, "data", "plants.db");
    const server = await startServer(databaseFile);
    expect((await post(server, plantBody(7, "Fern"))).status).toBe(200);
    const backups = join(dir, "backups");
    // Left by a backup killed mid-copy: removed, never counted as a snapshot.
    mkdirSync(backups);
    writeFileSync(join(backups, "plants-20260101T000000Z.db.partial"), "half a copy");
    writeFileSync(join(backups, "notes.txt"), "the operator's own file");

    // 0.02 minutes: a snapshot every 1.2 s.
    const scheduled = startCli(["backup", "--dir", backups, "--every", "0.02", "--keep", "2"], {
      DATABASE_URL: databaseFile,
    });
    await scheduled.waitForStdout(/(^backed up 1 plants.*\n){3}/m);
    scheduled.child.kill("SIGTERM");
    expect(await scheduled.exited).toBe(0);
    expect(scheduled.stderr()).toBe("");
    expect(scheduled.stdout()).toMatch(
      /^backing up .+plants\.db into .+backups every 0\.02 min, keeping the newest 2\n/,
    );
    expect(scheduled.stdout()).toMatch(/; 1 older removed\n(.|\n)*stopped\n$/);
    const left = readdirSync(backups).sort();
    expect(left).toHaveLength(3);
    expect(left[0]).toBe("notes.txt");
    for (const name of left.slice(1)) {
      expect(name).toMatch(/^plants-\d{8}T\d{6}Z\.db$/);
      expect(querySqliteFile(join(backups, name), (db) => db.prepare("SELECT name FROM plants").all())).toEqual([
        { name: "Fern" },
      ]);
    }
  });

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

  it("scheduled: a failed snapshot is reported on one line and tried again at the next turn", async () => {
    const dir = tempDir("plant-store-backup-");
    const scheduled = startCli(["backup", "--dir", join(dir, "backups"), "--every", "0.02"], {
      DATABASE_URL: join(dir, "missing.db"),
    });
    await scheduled.waitForStderr(
      /(^backup failed: there is no SQLite store at .+missing\.db; next try at \d{4}-[\d-]+T[\d:.]+Z\n){2}/m,
    );
    scheduled.child.kill("SIGTERM");
    expect(await scheduled.exited).toBe(0);
    expect(readdirSync(join(dir, "backups"))).toEqual([]);
  });
});

describe("bad input: one line on stderr, exit 1, nothing changed", () => {
  /** A stopped store holding one plant, and a good snapshot of it. */
  async function storeAndSnapshot() {
    const dir = tempDir("plant-store-backup-");
    const databaseFile = join(dir, "data", "plants.db");
    const server = await startServer(databaseFile);
    expect((await post(server, plantBody(1, "Oak"))).status).toBe(200);
    const snapshot = join(dir, "snapshot.db");
    expect((await runCli(["backup", snapshot], { DATABASE_URL: databaseFile })).code).toBe(0);
    server.child.kill("SIGTERM");
    await server.exited;
    return { dir, databaseFile, snapshot };
  }

  const folderState = (folder: string) =>
    readdirSync(folder)
      .sort()
      .map((name) => `${name}:${readFileSync(join(folder, name)).toString("base64")}`);

  it("restore refuses a missing file, a file that is not SQLite, a newer schema, a target with plants, a store in use", async () => {
    const { dir, databaseFile, snapshot } = await storeAndSnapshot();
    const env = { DATABASE_URL: databaseFile };
    const before = folderState(join(dir, "data"));
    const notSqlite = join(dir, "notes.txt");
    writeFileSync(notSqlite, "not a database at all");
    const newer = join(dir, "newer.db");
    writeFileSync(newer, readFileSync(snapshot));
    const db = new DatabaseSync(newer);
    db.exec(
      "INSERT INTO kysely_migration (name, timestamp) VALUES ('9999_from_the_future', '2099-01-01T00:00:00.000Z')",
    );
    db.close();
    const corrupt = join(dir, "corrupt.db");
    const bytes = readFileSync(snapshot);
    bytes.fill(0xff, 4096 + 8, 8192); // page 2 (a B-tree page) overwritten
    writeFileSync(corrupt, bytes);

    const cases: [string[], RegExp][] = [
      [["restore", join(dir, "missing.db")], /^plant-store restore: there is no file at .+missing\.db\n$/],
      [["restore", notSqlite], /^plant-store restore: .+notes\.txt is not a SQLite database\n$/],
      [
        ["restore", newer, "--force"],
        /^plant-store restore: .+newer\.db has schema version 9999, newer than this server's 2: restore it with the release that wrote it\n$/,
      ],
      [
        ["restore", corrupt, "--force"],
        /^plant-store restore: .+corrupt\.db (fails the integrity check: .+|is not a Plant Store database.*)\n$/,
      ],
      [
        ["restore", snapshot],
        /^plant-store restore: the store at .+plants\.db holds 1 plants: replace them with --force\n$/,
      ],
      [["restore"], /^plant-store restore: the snapshot's <file> is missing\n$/],
    ];
    for (const [args, stderr] of cases) {
      const result = await runCli(args, env);
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 1, stdout: "" });
      expect(result.stderr).toMatch(stderr);
      expect(folderState(join(dir, "data"))).toEqual(before);
      expect(existsSync(join(dir, "data", "plants.db.restoring"))).toBe(false);
    }

    const server = await startServer(databaseFile);
    const inUse = await runCli(["restore", snapshot, "--force"], env);
    expect(inUse).toMatchObject({ code: 1, stdout: "" });
    expect(inUse.stderr).toMatch(/^plant-store restore: the store at .+plants\.db is in use: stop the server first\n$/);
    expect((await post(server, plantBody(1, "Oak"))).status).toBe(200);
  });

  it("restore --force replaces a store that holds plants, and says so", async () => {
    const { databaseFile, snapshot } = await storeAndSnapshot();
    const server = await startServer(databaseFile);
    expect((await post(server, plantBody(2, "Elm"))).status).toBe(200);
    server.child.kill("SIGKILL");
    await server.exited;
    const result = await runCli(["restore", snapshot, "--force"], { DATABASE_URL: databaseFile });
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toMatch(
      /^restored 1 plants \(schema version 2, this server's\) from .+ to .+plants\.db, replacing 2 plants\n$/,
    );
    expect(querySqliteFile(databaseFile, (db) => db.prepare("SELECT id, name FROM plants").all())).toEqual([
      { id: 1n, name: "Oak" },
    ]);
  });

  it("restore ignores a WAL left beside its copy by a restore killed mid-check: the store holds the snapshot's plants", async () => {
    const { dir, databaseFile, snapshot } = await storeAndSnapshot();
    // A WAL with a committed plant the snapshot lacks, written for a database of the same schema.
    const other = join(dir, "other.db");
    writeFileSync(other, readFileSync(snapshot));
    const db = new DatabaseSync(other);
    db.exec("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0");
    db.exec("INSERT INTO plants (id, name, tag) VALUES (2, 'Ghost', NULL)");
    writeFileSync(`${databaseFile}.restoring-wal`, readFileSync(`${other}-wal`));
    db.close();

    const result = await runCli(["restore", snapshot, "--force"], { DATABASE_URL: databaseFile });
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toMatch(/^restored 1 plants /);
    expect(querySqliteFile(databaseFile, (db) => db.prepare("SELECT id, name FROM plants").all())).toEqual([
      { id: 1n, name: "Oak" },
    ]);
    expect(readdirSync(join(dir, "data")).filter((name) => name.includes(".restoring"))).toEqual([]);
  });

  it("restore refuses a store's file with commits still in its WAL: they would not come with it", async () => {
    const { dir, databaseFile } = await storeAndSnapshot();
    const live = join(dir, "live", "plants.db");
    const server = await startServer(live);
    expect((await post(server, plantBody(3, "Ash"))).status).toBe(200);
    server.child.kill("SIGKILL");
    await server.exited;
    const before = folderState(join(dir, "data"));

    const result = await runCli(["restore", live, "--force"], { DATABASE_URL: databaseFile });
    expect(result).toMatchObject({ code: 1, stdout: "" });
    expect(result.stderr).toMatch(
      /^plant-store restore: .+live\/plants\.db has a WAL beside it: snapshot it first \(DATABASE_URL=.+ plant-store backup <file>\) and restore that\n$/,
    );
    expect(folderState(join(dir, "data"))).toEqual(before);

    // As the message says: a snapshot of it holds the plant, and restores.
    const fromLive = join(dir, "from-live.db");
    expect((await runCli(["backup", fromLive], { DATABASE_URL: live })).code).toBe(0);
    expect((await runCli(["restore", fromLive, "--force"], { DATABASE_URL: databaseFile })).stdout).toMatch(
      /^restored 1 plants /,
    );
    expect(querySqliteFile(databaseFile, (db) => db.prepare("SELECT id, name FROM plants").all())).toEqual([
      { id: 3n, name: "Ash" },
    ]);
  });

  it("backup refuses bad --every and --keep values and a missing folder, and writes nothing", async () => {
    const dir = tempDir("plant-store-backup-");
    const env = { DATABASE_URL: join(dir, "plants.db") };
    const backups = join(dir, "backups");
    const cases: [string[], RegExp][] = [
      [["--dir", backups, "--every", "0"], /^plant-store backup: --every must be a positive number, not "0"\n$/],
      [["--dir", backups, "--every", "ten"], /^plant-store backup: --every must be a positive number, not "ten"\n$/],
      // Snapshot names carry the second they start in: two in one second would share one.
      [
        ["--dir", backups, "--every", "0.01"],
        /^plant-store backup: --every must be at least 0\.0167 minutes \(1 s\): snapshots are named by the second they start in, not 0\.01\n$/,
      ],
      // Past a timer's range (about 24.8 days) a wait would end at once: snapshots back to back.
      [
        ["--dir", backups, "--every", "100000"],
        /^plant-store backup: --every must be at most 35791 minutes, not 100000\n$/,
      ],
      [["--dir", backups, "--keep", "0"], /^plant-store backup: --keep must be a positive whole number, not "0"\n$/],
      [
        ["--dir", backups, "--keep", "1.5"],
        /^plant-store backup: --keep must be a positive whole number, not "1\.5"\n$/,
      ],
      [[join(dir, "snapshot.db"), "--keep", "3"], /^plant-store backup: --keep goes with --dir\n$/],
      [
        [join(dir, "a.db"), join(dir, "b.db")],
        /^plant-store backup: expected the snapshot's <file> \(or --dir <dir>\) alone, got 2 arguments\n$/,
      ],
    ];
    for (const [args, stderr] of cases) {
      const result = await runCli(["backup", ...args], env);
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 1, stdout: "" });
      expect(result.stderr).toMatch(stderr);
    }
    expect(readdirSync(dir)).toEqual([]);

    const server = await startServer(env.DATABASE_URL);
    expect((await post(server, plantBody(1, "Oak"))).status).toBe(200);
    const noFolder = await runCli(["backup", join(dir, "missing", "snapshot.db")], env);
    expect(noFolder).toMatchObject({ code: 1, stdout: "" });
    expect(noFolder.stderr).toMatch(/^plant-store backup: there is no folder .+missing for the snapshot\n$/);
    expect(existsSync(join(dir, "missing"))).toBe(false);
  }, 40_000); // nine runs of the CLI, each a Node start

  it("backup refuses a missing store, a file that is not SQLite and a PostgreSQL URL, and leaves no file behind", async () => {
    const dir = tempDir("plant-store-backup-");
    const snapshot = join(dir, "snapshot.db");
    const notSqlite = join(dir, "notes.db");
    writeFileSync(notSqlite, "not a database at all");
    const cases: [Record<string, string>, RegExp][] = [
      [{ DATABASE_URL: join(dir, "missing.db") }, /^plant-store backup: there is no SQLite store at .+missing\.db\n$/],
      [{ DATABASE_URL: notSqlite }, /^plant-store backup: .+notes\.db is not a SQLite database\n$/],
      [
        { DATABASE_URL: "postgres://localhost/plants" },
        /^plant-store backup: DATABASE_URL names PostgreSQL: back it up with pg_dump .+\n$/,
      ],
    ];
    for (const [env, stderr] of cases) {
      const result = await runCli(["backup", snapshot], env);
      expect(result).toMatchObject({ code: 1, stdout: "" });
      expect(result.stderr).toMatch(stderr);
    }
    expect(readdirSync(dir)).toEqual(["notes.db"]);
  });
});
