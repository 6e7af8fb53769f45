import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { progressText } from "../src/cli/copy-store.js";
import { createLogger } from "../src/logger.js";
import { migratePostgres } from "../src/store/postgres/postgres-plant-store.js";
import { fillSqliteStore } from "../src/testing/fill-sqlite-store.js";
import { runCli } from "./support/cli-process.js";
import { createTestDatabase, describePostgres, type TestDatabase } from "./support/postgres.js";
import { tempDir } from "@plant-store/test-support/temp-dir";

// copy-store's verification of a target holding other plants, its refusals and its progress line: small stores, run
// beside other files (the copies of 100,000 plants, killed runs and the move under a writing server are in
// copy-store.test.ts, which runs alone).
describePostgres("copy-store: what it refuses, and a target that holds other plants", () => {
  const dir = tempDir("plant-store-copy-");
  const source = join(dir, "plants.db");
  let database: TestDatabase;

  beforeAll(async () => {
    await fillSqliteStore(source, [
      { id: 1n, name: "Oak", tag: null },
      { id: 2n, name: "Ash", tag: "tree" },
    ]);
    database = await createTestDatabase();
  });
  afterEach(async () => {
    await database.query("DROP SCHEMA public CASCADE; CREATE SCHEMA public");
  });

  it("a target holding plants the source does not fails the verification with their count, first ids and how many more: exit 2", async () => {
    const small = join(dir, "small.db");
    // Source ids 1, 3, 5, ..., 29; the target also holds 12 even ids among and beyond them, and the int64 extremes.
    await fillSqliteStore(
      small,
      Array.from({ length: 15 }, (_, i) => ({ id: BigInt(2 * i + 1), name: `odd ${2 * i + 1}`, tag: null })),
    );
    await migratePostgres({ connectionString: database.url, connectTimeoutMs: 3_000, logger: createLogger("silent") });
    const extra = [-(2n ** 63n), 2n, 4n, 6n, 8n, 10n, 12n, 14n, 16n, 18n, 20n, 40n, 2n ** 63n - 1n];
    for (const id of extra)
      await database.query("INSERT INTO plants (id, name, tag) VALUES ($1, 'extra', NULL)", [id.toString()]);

    const run = await runCli(["copy-store", "--to", database.url], { DATABASE_URL: small });
    expect(run.stdout).toMatch(/^copied 15, already there 0, conflicts 0 in /m);
    expect(run.stdout).toMatch(/^source: 15 plants, checksum [0-9a-f]{16}\ntarget: 28 plants, checksum [0-9a-f]{16}$/m);
    expect(run.stdout).toMatch(
      /^not verified: the target holds 13 plants the source does not \(ids -9223372036854775808, 2, 4, 6, 8, 10, 12, 14, 16, 18 and 3 more\)$/m,
    );
    expect(run.code).toBe(2);

    // One extra plant: named alone.
    await database.query("DELETE FROM plants WHERE name = 'extra' AND id <> 40");
    const again = await runCli(["copy-store", "--to", database.url], { DATABASE_URL: small });
    expect(again.stdout).toMatch(/^copied 0, already there 15, conflicts 0 in /m);
    expect(again.stdout).toMatch(/^not verified: the target holds 1 plant the source does not \(id 40\)$/m);
    expect(again.code).toBe(2);
  });

  it.each([
    ["no --to", [], "--to <postgres URL> is required"],
    ["an unreachable target", ["--to", "postgres://postgres@127.0.0.1:1/plants"], "PostgreSQL at 127.0.0.1:1/plants: "],
    [
      "a target that refuses the login",
      ["--to", "postgres://no_such_role:secret@127.0.0.1:5432/test"],
      'role "no_such_role" does not exist',
    ],
  ])("%s: one line on stderr, exit 1, no password shown", async (_, args, message) => {
    const run = await runCli(["copy-store", ...args], { DATABASE_URL: source });
    expect(run.stderr).toContain(message);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).not.toContain("secret");
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.code).toBe(1);
  });

  it.each([
    ["a missing file", () => join(dir, "missing.db"), "no SQLite store at "],
    ["a file that is not SQLite", () => notSqlite(), "cannot be read as a SQLite store: file is not a database"],
    ["a PostgreSQL DATABASE_URL", () => "postgres://postgres@127.0.0.1:5432/test", "DATABASE_URL names PostgreSQL"],
  ])("a source that is %s: one line on stderr, exit 1, the target untouched", async (_, databaseUrl, message) => {
    const run = await runCli(["copy-store", "--to", database.url], { DATABASE_URL: databaseUrl() });
    expect(run.stderr).toContain(message);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.code).toBe(1);
    expect(await database.query("SELECT to_regclass('plants') IS NULL AS untouched")).toEqual([{ untouched: true }]);
  });

  function notSqlite(): string {
    const file = join(dir, "notes.db");
    writeFileSync(file, "not a database\n".repeat(100));
    return file;
  }
});

describe("copy-store's progress", () => {
  it("says how far, how fast and how long is left", () => {
    expect(progressText(450_000, 1_000_000, 5_000)).toBe(
      "[#########-----------]  45% 450000/1000000 plants, 90000 plants/s, 7 s left",
    );
    expect(progressText(1_000_000, 1_000_000, 10_000)).toBe(
      "[####################] 100% 1000000/1000000 plants, 100000 plants/s",
    );
    expect(progressText(0, 0, 0)).toBe("[####################] 100% 0/0 plants, 0 plants/s");
  });
});
