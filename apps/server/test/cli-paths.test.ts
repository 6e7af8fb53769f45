import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { fillSqliteStore } from "../src/testing/fill-sqlite-store.js";
import { runCli } from "./support/cli-process.js";
import { REPO_ROOT, runRootScript, SERVER_DIR } from "./support/root-script.js";
import { querySqliteFile } from "@plant-store/test-support/sqlite-file";
import { tempDir } from "@plant-store/test-support/temp-dir";

/** A relative DATABASE_URL, as an operator sets it, in a folder of its own under apps/server/data (removed after). */
function relativeStore(): { databaseUrl: string; file: string } {
  const folder = join("data", `cli-paths-${randomUUID()}`);
  onTestFinished(() => rmSync(join(SERVER_DIR, folder), { recursive: true, force: true }));
  return { databaseUrl: join(folder, "plants.db"), file: join(SERVER_DIR, folder, "plants.db") };
}

const ROOT_SCRIPTS = (
  JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
).scripts;

const plants = [
  { id: 1n, name: "Oak", tag: null },
  { id: 9007199254740993n, name: "Ash", tag: "tree" },
];

describe("the CLI reads the store pnpm start reads, wherever it is run from", () => {
  it.each(["backup", "restore", "copy-store", "inspect"])(
    "pnpm %s builds the server, then runs plant-store in apps/server",
    (name) => {
      expect(ROOT_SCRIPTS[name]).toBe(
        `node apps/server/scripts/build-quietly.mjs && cd apps/server && exec node dist/cli/main.js ${name}`,
      );
    },
  );

  it("pnpm backup, restore and inspect at the repository's root resolve a relative DATABASE_URL in apps/server, and name files by absolute path", {
    timeout: 120_000,
  }, async () => {
    const store = relativeStore();
    mkdirSync(join(store.file, ".."), { recursive: true });
    await fillSqliteStore(store.file, plants);
    const snapshot = join(tempDir("plant-store-cli-paths-"), "snapshot.db");

    const backedUp = await runRootScript(["backup", snapshot], { DATABASE_URL: store.databaseUrl });
    expect(backedUp.stdout, backedUp.stderr).toMatch(new RegExp(`^backed up 2 plants, .+ to ${snapshot}\\n$`));
    expect(backedUp.code).toBe(0);

    rmSync(join(store.file, ".."), { recursive: true });
    const restored = await runRootScript(["restore", snapshot], { DATABASE_URL: store.databaseUrl });
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toBe(
      `restored 2 plants (schema version 2, this server's) from ${snapshot} to ${store.file}\n` +
        `there was no store at ${store.file}: this is a new one; check that the server's DATABASE_URL names it\n`,
    );
    expect(querySqliteFile(store.file, (db) => db.prepare("SELECT count(*) AS n FROM plants").get()?.n)).toBe(2n);
    const inspected = await runRootScript(["inspect"], { DATABASE_URL: store.databaseUrl });
    expect(inspected.stdout).toMatch(
      new RegExp(`^store:  SQLite ${store.file}\nschema: version 2, this server's\nplants: 2\nsize:   .+ kB\n$`),
    );
  });

  it("plant-store run in apps/server reads the same file, and the root's scripts and it agree", async () => {
    const store = relativeStore();
    mkdirSync(join(store.file, ".."), { recursive: true });
    await fillSqliteStore(store.file, plants);
    const snapshot = join(tempDir("plant-store-cli-paths-"), "snapshot.db");
    // The same relative value from elsewhere names a store that is not there, and says where it looked.
    const [backedUp, elsewhere] = await Promise.all([
      runCli(["backup", snapshot], { DATABASE_URL: store.databaseUrl }, { cwd: SERVER_DIR }),
      runCli(
        ["backup", join(tempDir("plant-store-cli-paths-"), "other.db")],
        { DATABASE_URL: store.databaseUrl },
        { cwd: REPO_ROOT },
      ),
    ]);
    expect(backedUp.stdout, backedUp.stderr).toMatch(new RegExp(`^backed up 2 plants, .+ to ${snapshot}\\n$`));
    expect(elsewhere.stderr).toBe(
      `plant-store backup: there is no SQLite store at ${join(REPO_ROOT, store.databaseUrl)}\n`,
    );
    expect(elsewhere.code).toBe(1);
  });

  it("backup refuses an existing file unless --force, and replaces it with --force", async () => {
    const dir = tempDir("plant-store-cli-paths-");
    const store = join(dir, "plants.db");
    await fillSqliteStore(store, plants);
    const snapshot = join(dir, "snapshot.db");
    writeFileSync(snapshot, "an operator's file");
    // --force with --dir is refused before anything is read: it runs beside the others.
    const withDir = runCli(["backup", "--dir", dir, "--force"], { DATABASE_URL: store });
    const refused = await runCli(["backup", snapshot], { DATABASE_URL: store });
    expect(refused).toMatchObject({ code: 1, stdout: "" });
    expect(refused.stderr).toBe(
      `plant-store backup: ${snapshot} exists: give another name, or replace it with --force\n`,
    );
    expect(readFileSync(snapshot, "utf8")).toBe("an operator's file");

    const forced = await runCli(["backup", snapshot, "--force"], { DATABASE_URL: store });
    expect(forced.code, forced.stderr).toBe(0);
    expect(querySqliteFile(snapshot, (db) => db.prepare("SELECT count(*) AS n FROM plants").get()?.n)).toBe(2n);

    expect(await withDir).toMatchObject({
      code: 1,
      stderr: "plant-store backup: --force goes with a <file>, not --dir\n",
    });
  });

  it("restore refuses the store's own file as the snapshot, however the path is spelled, even with --force", async () => {
    const dir = tempDir("plant-store-cli-paths-");
    const store = join(dir, "plants.db");
    await fillSqliteStore(store, plants);
    const before = readFileSync(store);
    // Each spelling is refused without touching the store: the three run at once.
    const results = await Promise.all([
      ...[store, join(dir, "..", dir.split("/").at(-1)!, "plants.db")].map((spelled) =>
        runCli(["restore", spelled, "--force"], { DATABASE_URL: store }, { cwd: dir }),
      ),
      runCli(["restore", "plants.db", "--force"], { DATABASE_URL: "./plants.db" }, { cwd: dir }),
    ]);
    for (const result of results.slice(0, 2)) expect(result).toMatchObject({ code: 1, stdout: "" });
    for (const result of results) {
      expect(result.stderr).toBe(
        `plant-store restore: ${store} is the store itself (DATABASE_URL): restore a snapshot that backup wrote\n`,
      );
    }
    expect(readFileSync(store).equals(before)).toBe(true);
    expect(existsSync(`${store}.restoring`)).toBe(false);
  });
});
