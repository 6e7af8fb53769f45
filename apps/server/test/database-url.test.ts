import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { maskPassword, parseDatabaseUrl } from "../src/store/database-url.js";
import { runCli } from "./support/cli-process.js";
import { runServerExpectingExit, startServerProcess } from "./support/server-process.js";
import { tempDir } from "@plant-store/test-support/temp-dir";

const SECRET = "database-url-secret-at-least-32-characters";

/** An empty folder to run a process in, removed when the test ends. */
const emptyFolder = () => tempDir("plant-store-database-url-");

describe("DATABASE_URL names a SQLite file or a PostgreSQL database, and nothing else", () => {
  it.each([
    ["./data/plants.db", { system: "sqlite", file: join(process.cwd(), "data/plants.db") }],
    ["/var/lib/plant-store/plants.sqlite", { system: "sqlite", file: "/var/lib/plant-store/plants.sqlite" }],
    ["store.SQLITE3", { system: "sqlite", file: join(process.cwd(), "store.SQLITE3") }],
    ["file:///var/lib/plant-store/plants", { system: "sqlite", file: "/var/lib/plant-store/plants" }],
    [
      "postgres://app:s3cret@db.internal/plants",
      {
        system: "postgresql",
        url: "postgres://app:s3cret@db.internal/plants",
        host: "db.internal",
        port: 5432,
        database: "plants",
      },
    ],
    [
      "postgresql://app@10.0.0.7:6432/plant%20store",
      { system: "postgresql", host: "10.0.0.7", port: 6432, database: "plant store" },
    ],
    [
      "postgres:///plants?host=/var/run/postgresql",
      { system: "postgresql", host: "/var/run/postgresql", database: "plants" },
    ],
  ])("accepts %s", (value, expected) => {
    expect(parseDatabaseUrl(value)).toMatchObject(expected);
  });

  it.each([
    ["postgres://app:s3cret@db.internal:5432/plants", "postgres://app:redacted@db.internal:5432/plants"],
    ["postgres://app:p@ss@db.internal/plants", "postgres://app:redacted@db.internal/plants"],
    ["postgres//app:s3cret@db.internal/plants", "postgres//app:redacted@db.internal/plants"],
    ["postgres://app@db.internal/plants", "postgres://app@db.internal/plants"],
  ])("masks the password of %s, parsable or not", (value, masked) => {
    expect(maskPassword(value)).toBe(masked);
  });

  // Each value the server once took: as a folder on the container's own disk, as the `postgres` database, or to a
  // message that named no variable.
  it.each([
    [
      "postgres//postgres@127.0.0.1:5432/plants",
      '"postgres//postgres@127.0.0.1:5432/plants" lacks the colon of postgres://',
    ],
    ["mysql://user@host/plants", '"mysql://user@host/plants" is a mysql: URL'],
    ["postgres://postgres@127.0.0.1:5432", '"postgres://postgres@127.0.0.1:5432" names no database'],
    ["postgres://", '"postgres://" names no host'],
    [
      "postgres://app:s3cret@db.internal:99999/plants",
      '"postgres://app:redacted@db.internal:99999/plants" is not a valid URL',
    ],
    ["postgresql://app:s3cret@127.0.0.1:5432/plants/more", "has a path after the database name"],
    ["./data/plants", '"./data/plants" is neither a SQLite file nor a PostgreSQL URL'],
    ["file:data/plants.db", '"file:data/plants.db" is not an absolute file:// URL'],
  ])("the server refuses %s: exit 1, one line naming DATABASE_URL, nothing on disk", async (value, message) => {
    const dir = emptyFolder();
    const result = await runServerExpectingExit({ JWT_SECRET: SECRET, DATABASE_URL: value }, { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^invalid configuration: DATABASE_URL: .*; expected .+\n$/);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toContain("s3cret");
    expect(readdirSync(dir)).toEqual([]);
  });

  it.each([
    ["backup", ["backup", "snapshot.db"]],
    ["restore", ["restore", "snapshot.db"]],
    ["copy-store", ["copy-store", "--to", "postgres://postgres@127.0.0.1:5432/test"]],
  ])("plant-store %s refuses a wrong DATABASE_URL the same way", async (name, args) => {
    const dir = emptyFolder();
    const result = await runCli(args, { DATABASE_URL: "postgres//app:s3cret@127.0.0.1:5432/plants" }, { cwd: dir });
    expect(result).toMatchObject({ code: 1, stdout: "" });
    expect(result.stderr).toBe(
      `plant-store ${name}: invalid configuration: DATABASE_URL: "postgres//app:redacted@127.0.0.1:5432/plants" lacks the colon of ` +
        "postgres://; expected a SQLite file (a file:// URL, or a path ending in .db, .sqlite, .sqlite3) or a postgres:// or " +
        "postgresql:// URL with a host and a database name (postgres://user@host:5432/plants)\n",
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it.each([
    ["mysql://user@host/plants", '--to: "mysql://user@host/plants" is a mysql: URL; expected'],
    [
      "postgres://app:s3cret@127.0.0.1:5432",
      '--to: "postgres://app:redacted@127.0.0.1:5432" names no database; expected',
    ],
    [
      "postgres//postgres@127.0.0.1:5432/plants",
      '--to: "postgres//postgres@127.0.0.1:5432/plants" lacks the colon of postgres://',
    ],
    ["target.db", "target.db is a SQLite file; copy-store copies into PostgreSQL (a postgres:// URL)"],
  ])("copy-store --to %s is read by the same parser: exit 1, one line", async (to, message) => {
    const dir = emptyFolder();
    const result = await runCli(["copy-store", "--to", to], { DATABASE_URL: join(dir, "plants.db") }, { cwd: dir });
    expect(result).toMatchObject({ code: 1, stdout: "" });
    expect(result.stderr).toMatch(/^plant-store copy-store: --to: /);
    expect(result.stderr).toContain(message);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).not.toContain("s3cret");
    expect(readdirSync(dir)).toEqual([]);
  });
});

it("a PostgreSQL host that does not resolve is waited for, each attempt's line saying it was not found and naming DATABASE_URL", async () => {
  const server = await startServerProcess(
    { JWT_SECRET: SECRET, DATABASE_URL: "postgres://postgres@no-such-host.invalid:5432/plants" },
    { untilReady: false },
  );
  onTestFinished(() => server.kill9());
  const line = await server.waitForStdout(/^\{.*"store unavailable at start; retrying".*\}$/m);
  expect(JSON.parse(line[0])).toMatchObject({
    level: 40,
    attempt: 1,
    reason: expect.stringMatching(
      /^host "no-such-host\.invalid" in DATABASE_URL was not found \((ENOTFOUND|EAI_AGAIN)\): a misspelled name, or DNS not serving it yet$/,
    ),
  });
  expect(server.alive()).toBe(true);
});
