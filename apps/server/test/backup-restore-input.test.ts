import { copyFileSync, cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { beforeAll, describe, expect, it } from "vitest";
import { signToken } from "../src/auth/sign-token.js";
import { StoreLock } from "../src/store/sqlite/store-lock.js";
import { runCli } from "./support/cli-process.js";
import { plantBody, postPlant, startServerOnFile } from "./support/server-process.js";
import { querySqliteFile } from "@plant-store/test-support/sqlite-file";
import { tempDir } from "@plant-store/test-support/temp-dir";
import { TEST_SECRET } from "./support/test-server.js";

// backup and restore refusing what they must refuse, and restore --force, through real processes: each a CLI run on
// a small store, run beside other files (the snapshot under load is in backup-restore.test.ts, which runs alone).
const token = signToken({ secret: TEST_SECRET });

const startServer = (databaseFile: string) => startServerOnFile(databaseFile);

describe("bad input: one line on stderr, exit 1, nothing changed", () => {
  // One stopped store holding one plant, and a good snapshot of it, made through a server and the CLI once; each test
  // gets a copy of both.
  let original: { databaseFile: string; snapshot: string };
  beforeAll(async () => {
    const dir = tempDir("plant-store-backup-");
    const databaseFile = join(dir, "data", "plants.db");
    const server = await startServer(databaseFile);
    expect((await postPlant(server, token, plantBody(1, "Oak"))).status).toBe(200);
    const snapshot = join(dir, "snapshot.db");
    expect((await runCli(["backup", snapshot], { DATABASE_URL: databaseFile })).code).toBe(0);
    await server.stop();
    original = { databaseFile, snapshot };
  });

  /** A copy of that store's folder and of its snapshot, in a folder of the test's own. */
  function storeAndSnapshot() {
    const dir = tempDir("plant-store-backup-");
    cpSync(dirname(original.databaseFile), join(dir, "data"), { recursive: true });
    copyFileSync(original.snapshot, join(dir, "snapshot.db"));
    return { dir, databaseFile: join(dir, "data", "plants.db"), snapshot: join(dir, "snapshot.db") };
  }

  const folderState = (folder: string) =>
    readdirSync(folder)
      .sort()
      .map((name) => `${name}:${readFileSync(join(folder, name)).toString("base64")}`);

  it("restore refuses a missing file, a file that is not SQLite, a newer schema, a target with plants, a store in use", async () => {
    const { dir, databaseFile, snapshot } = storeAndSnapshot();
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
    expect((await postPlant(server, token, plantBody(1, "Oak"))).status).toBe(200);
  });

  it("restore refuses while another process holds the store's lock (a server waiting for it to let go), then restores", async () => {
    const { dir, databaseFile, snapshot } = storeAndSnapshot();
    const env = { DATABASE_URL: databaseFile };
    const before = folderState(join(dir, "data"));
    // This test's process stands for the server: it holds the lock without having the store file open.
    const lock = StoreLock.acquire(databaseFile);
    const inUse = await runCli(["restore", snapshot, "--force"], env);
    lock.release();
    expect(inUse).toMatchObject({ code: 1, stdout: "" });
    expect(inUse.stderr).toBe(`plant-store restore: the store at ${databaseFile} is in use: stop the server first\n`);
    expect(folderState(join(dir, "data"))).toEqual(before);

    const restored = await runCli(["restore", snapshot, "--force"], env);
    expect(restored).toMatchObject({ code: 0, stderr: "" });
    // The lock's file goes with the restore that held it.
    expect(readdirSync(join(dir, "data"))).toEqual(["plants.db"]);
  });

  it("restore --force replaces a store that holds plants, and says so", async () => {
    const { databaseFile, snapshot } = storeAndSnapshot();
    const server = await startServer(databaseFile);
    expect((await postPlant(server, token, plantBody(2, "Elm"))).status).toBe(200);
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
    const { dir, databaseFile, snapshot } = storeAndSnapshot();
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
    const { dir, databaseFile } = storeAndSnapshot();
    const live = join(dir, "live", "plants.db");
    const server = await startServer(live);
    expect((await postPlant(server, token, plantBody(3, "Ash"))).status).toBe(200);
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
    expect((await postPlant(server, token, plantBody(1, "Oak"))).status).toBe(200);
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
