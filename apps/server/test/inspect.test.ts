import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { createLogger } from "../src/logger.js";
import { PostgresPlantStore } from "../src/store/postgres/postgres-plant-store.js";
import { fillSqliteStore } from "../src/testing/fill-sqlite-store.js";
import { runCli } from "./support/cli-process.js";
import { createTestDatabase, describePostgres, type TestDatabase } from "./support/postgres.js";
import { querySqliteFile } from "@plant-store/test-support/sqlite-file";
import { tempDir as makeTempDir } from "@plant-store/test-support/temp-dir";

const plants = [
  { id: 1n, name: "Oak", tag: null },
  { id: 9007199254740993n, name: "Ash", tag: "tree" },
  { id: -(2n ** 63n), name: "Lowest", tag: null },
];

/** A fresh folder, removed when the test ends, or after the file when made outside a test. */
const tempDir = () => makeTempDir("plant-store-inspect-");

async function sqliteStore(): Promise<{ dir: string; file: string }> {
  const dir = tempDir();
  const file = join(dir, "plants.db");
  await fillSqliteStore(file, plants);
  return { dir, file };
}

describe("plant-store inspect on a SQLite store", () => {
  // One store for the tests that only read: inspect never writes to it, which the first test checks.
  let shared: { dir: string; file: string };
  beforeAll(async () => {
    shared = await sqliteStore();
  });

  it("prints the location, the schema version as a number, the plant count and the size, and writes nothing", async () => {
    const { dir, file } = shared;
    const before = readFileSync(file);
    const result = await runCli(["inspect"], { DATABASE_URL: file });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `store:  SQLite ${file}\nschema: version 2, this server's\nplants: 3\nsize:   ${(statSync(file).size / 1000).toFixed(1)} kB\n`,
    );
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(readdirSync(dir)).toEqual(["plants.db"]);
  });

  it("reads a store a server has open: the plants committed to its WAL count", async () => {
    const { file } = await sqliteStore();
    // A connection holding the store open as a server does, its commits in the WAL and not yet in the file.
    const server = new DatabaseSync(file);
    onTestFinished(() => server.close());
    server.exec("PRAGMA wal_autocheckpoint = 0; INSERT INTO plants (id, name) VALUES (2, 'Elm')");
    const [result, elm] = await Promise.all([
      runCli(["inspect"], { DATABASE_URL: file }),
      runCli(["inspect", "--id", "2"], { DATABASE_URL: file }),
    ]);
    expect(result.stdout).toMatch(/^plants: 4$/m);
    expect(elm.stdout).toBe('{"id":2,"name":"Elm"}\n');
  });

  it("--id prints one plant as JSON with its int64 id exact; an absent id exits 2 and creates nothing", async () => {
    const { file } = shared;
    // Three reads of one store, independent of each other: run at once.
    const [found, lowest, absent] = await Promise.all([
      runCli(["inspect", "--id", "9007199254740993"], { DATABASE_URL: file }),
      runCli(["inspect", `--id=${-(2n ** 63n)}`], { DATABASE_URL: file }),
      runCli(["inspect", "--id", "9007199254740992"], { DATABASE_URL: file }),
    ]);
    expect(found).toMatchObject({ code: 0, stderr: "", stdout: '{"id":9007199254740993,"name":"Ash","tag":"tree"}\n' });
    expect(lowest.stdout).toBe('{"id":-9223372036854775808,"name":"Lowest"}\n');

    expect(absent).toMatchObject({
      code: 2,
      stdout: "",
      stderr: `plant-store inspect: no plant with id 9007199254740992 in SQLite ${file}\n`,
    });
    expect(querySqliteFile(file, (db) => db.prepare("SELECT count(*) AS n FROM plants").get()?.n)).toBe(3n);
  });

  it.each([
    ["a number past int64", "9223372036854775808"],
    ["a fraction", "1.5"],
    ["a word", "oak"],
  ])("--id with %s: exit 1, one line", async (_, id) => {
    const { file } = shared;
    const result = await runCli(["inspect", "--id", id], { DATABASE_URL: file });
    expect(result).toMatchObject({ code: 1, stdout: "" });
    expect(result.stderr).toBe(
      `plant-store inspect: --id must be a 64-bit integer (from -9223372036854775808 to 9223372036854775807), not ${JSON.stringify(id)}\n`,
    );
  });

  it("never migrates: a store of an older schema is reported as such and stays so", async () => {
    const { file } = await sqliteStore();
    const db = new DatabaseSync(file);
    db.exec("DELETE FROM kysely_migration WHERE name = '0002_create_writer_probe'");
    db.close();
    const result = await runCli(["inspect"], { DATABASE_URL: file });
    expect(result.stdout).toMatch(/^schema: version 1, older than this server's 2: a start migrates it$/m);
    const applied = querySqliteFile(file, (db) =>
      db
        .prepare("SELECT name FROM kysely_migration")
        .all()
        .map((row) => row.name),
    );
    expect(applied).toEqual(["0001_create_plants"]);
  });

  it("a missing store: exit 1, one line naming it by absolute path, nothing created", async () => {
    const dir = tempDir();
    const result = await runCli(["inspect"], { DATABASE_URL: "missing/plants.db" }, { cwd: dir });
    expect(result).toMatchObject({
      code: 1,
      stdout: "",
      stderr: `plant-store inspect: no SQLite store at ${join(dir, "missing/plants.db")} (DATABASE_URL)\n`,
    });
    expect(readdirSync(dir)).toEqual([]);
  });
});

describePostgres("plant-store inspect on a PostgreSQL store", () => {
  async function migratedWithPlants(): Promise<TestDatabase> {
    const db = await createTestDatabase();
    const store = await PostgresPlantStore.open({
      connectionString: db.url,
      poolSize: 1,
      statementTimeoutMs: 5_000,
      connectTimeoutMs: 5_000,
      logger: createLogger("silent"),
    });
    await store.close();
    for (const plant of plants)
      await db.query("INSERT INTO plants (id, name, tag) VALUES ($1, $2, $3)", [
        plant.id.toString(),
        plant.name,
        plant.tag,
      ]);
    return db;
  }

  // One migrated database for the tests that only read it.
  let db: TestDatabase;
  beforeAll(async () => {
    db = await migratedWithPlants();
  });

  it("prints the location with the password masked, the schema version, the plant count and the size", async () => {
    const withPassword = db.url.replace("://postgres@", "://postgres:s3cret@");
    const result = await runCli(["inspect"], { DATABASE_URL: withPassword });
    expect(result.stderr).toBe("");
    expect(result.stdout).toMatch(
      new RegExp(
        `^store:  PostgreSQL ${withPassword.replace("s3cret", "redacted").replace(/[.?*+^$()[\]\\/]/g, "\\$&")}\nschema: version 1, this server's\nplants: 3\nsize:   [\\d.]+ kB\n$`,
      ),
    );
  });

  it("--id prints one plant exactly, an absent id exits 2", async () => {
    const [found, absent] = await Promise.all([
      runCli(["inspect", "--id", "9007199254740993"], { DATABASE_URL: db.url }),
      runCli(["inspect", "--id", "2"], { DATABASE_URL: db.url }),
    ]);
    expect(found).toMatchObject({ code: 0, stdout: '{"id":9007199254740993,"name":"Ash","tag":"tree"}\n' });
    expect(absent).toMatchObject({ code: 2, stdout: "" });
    expect(absent.stderr).toMatch(/^plant-store inspect: no plant with id 2 in PostgreSQL postgres:\/\/.+\n$/);
  });

  it("a database no server has started on: exit 1, one line, and it is left without tables", async () => {
    const empty = await createTestDatabase();
    const result = await runCli(["inspect"], { DATABASE_URL: empty.url });
    expect(result).toMatchObject({ code: 1, stdout: "" });
    expect(result.stderr).toMatch(
      /^plant-store inspect: PostgreSQL postgres:\/\/.+ holds no Plant Store: it has no plants table \(no server has started on it\)\n$/,
    );
    expect(await empty.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'")).toEqual([
      { n: 0 },
    ]);
  });

  it("an unreachable database: exit 1, one line naming where", async () => {
    const result = await runCli(["inspect"], {
      DATABASE_URL: "postgres://postgres@127.0.0.1:1/plants",
      PG_CONNECT_TIMEOUT_MS: "2000",
    });
    expect(result).toMatchObject({ code: 1, stdout: "" });
    expect(result.stderr).toMatch(/^plant-store inspect: PostgreSQL at 127\.0\.0\.1:1\/plants: .+\n$/);
  });
});
