import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fillSqliteStore } from "../src/testing/fill-sqlite-store.js";
import { createTestDatabase, describePostgres } from "./support/postgres.js";
import { runRootScript, SERVER_DIR, startRootScript } from "./support/root-script.js";
import { tempDir } from "@plant-store/test-support/temp-dir";

// The scripts an operator runs (`pnpm --silent inspect`, ...), through pnpm as the docs write them, build step
// included: what an operator's script reads is the CLI's own output and exit code, and nothing pnpm or turbo add.

async function scratchStore(): Promise<string> {
  const file = join(tempDir("plant-store-root-scripts-"), "plants.db");
  await fillSqliteStore(file, [{ id: 1n, name: "Oak", tag: null }]);
  return file;
}

const SECRET = "a-test-secret-of-at-least-thirty-two-characters";

describe("the operator's scripts behave like the CLI they run", () => {
  it("pnpm --silent inspect --id <absent>, at the root and in apps/server: exit 2, the CLI's one line on stderr, nothing else", async () => {
    const store = await scratchStore();
    const [atRoot, inServer] = await Promise.all([
      runRootScript(["inspect", "--id", "42"], { DATABASE_URL: store }),
      runRootScript(["inspect", "--id", "42"], { DATABASE_URL: store }, { cwd: SERVER_DIR }),
    ]);
    for (const run of [atRoot, inServer]) {
      expect(run).toEqual({
        code: 2,
        stdout: "",
        stderr: `plant-store inspect: no plant with id 42 in SQLite ${store}\n`,
      });
    }
  });

  it("pnpm --silent inspect and backup that succeed print only the CLI's output: stderr stays empty", async () => {
    const store = await scratchStore();
    const snapshot = join(tempDir("plant-store-root-scripts-"), "snapshot.db");
    const [inspected, found, backedUp] = await Promise.all([
      runRootScript(["inspect"], { DATABASE_URL: store }),
      runRootScript(["inspect", "--id", "1"], { DATABASE_URL: store }),
      runRootScript(["backup", snapshot], { DATABASE_URL: store }, { cwd: SERVER_DIR }),
    ]);
    expect(inspected).toMatchObject({ code: 0, stderr: "" });
    expect(inspected.stdout).toMatch(
      new RegExp(`^store:  SQLite ${store}\nschema: version 2, this server's\nplants: 1\n`),
    );
    expect(found).toEqual({ code: 0, stdout: '{"id":1,"name":"Oak"}\n', stderr: "" });
    expect(backedUp).toMatchObject({ code: 0, stderr: "" });
    expect(backedUp.stdout).toMatch(new RegExp(`^backed up 1 plants, .+ to ${snapshot}\n$`));
    expect(existsSync(snapshot)).toBe(true);
  });

  it("a refused restore, token or start: exit 1 and the one line, with no pnpm error after it", async () => {
    const store = await scratchStore();
    const [restored, token, started] = await Promise.all([
      runRootScript(["restore", store, "--force"], { DATABASE_URL: store }),
      runRootScript(["run", "token", "--expires-in", "soon"], { JWT_SECRET: SECRET }),
      runRootScript(["start"], { DATABASE_URL: store, PORT: "not-a-port" }),
    ]);
    expect(restored).toEqual({
      code: 1,
      stdout: "",
      stderr: `plant-store restore: ${store} is the store itself (DATABASE_URL): restore a snapshot that backup wrote\n`,
    });
    expect(token).toEqual({
      code: 1,
      stdout: "",
      stderr: 'plant-store issue-token: --expires-in must be a positive whole number, not "soon"\n',
    });
    expect(started).toMatchObject({ code: 1, stdout: "" });
    expect(started.stderr).toMatch(/^invalid configuration: PORT: [^\n]+\n$/);
  });
});

describe("pnpm --silent start", () => {
  it("a SIGTERM to pnpm reaches the server alone: it stops cleanly and pnpm exits 0", async () => {
    const store = await scratchStore();
    const started = startRootScript(["start"], { DATABASE_URL: store, PORT: "0", JWT_SECRET: SECRET });
    await started.waitFor("stdout", /"ready":true,"msg":"plant store listening"/, 30_000);
    process.kill(started.pid, "SIGTERM");
    expect(await started.closed, started.output()).toBe(0);
    expect(started.stdout()).toMatch(/"signal":"SIGTERM"[^\n]*"msg":"shutting down: readiness is now 503"/);
    expect(started.stdout()).toMatch(/"msg":"stopped"\}\n$/);
    expect(started.stderr()).toBe("");
  });
});

describePostgres("pnpm --silent copy-store", () => {
  it("a conflict exits 2, as copy-store --help says, with the report on stdout and nothing on stderr", async () => {
    const store = await scratchStore();
    const database = await createTestDatabase();
    // The target already holds id 1 with other data: copy-store migrates it, then finds the conflict.
    const first = await runRootScript(["copy-store", "--to", database.url], { DATABASE_URL: store });
    expect(first).toMatchObject({ code: 0, stderr: "" });
    await database.query("UPDATE plants SET name = 'Elm' WHERE id = 1");

    const run = await runRootScript(["copy-store", "--to", database.url], { DATABASE_URL: store });
    expect(run).toMatchObject({ code: 2, stderr: "" });
    expect(run.stdout).toContain(
      'conflict: id 1: source {"name":"Oak"}, target {"name":"Elm"}\n' +
        "not verified: 1 id holds other data in the target; settle it and run again\n",
    );
    expect(run.stdout).toMatch(/^copying 1 plant from /);
  });
});
