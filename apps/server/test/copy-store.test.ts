import { execFileSync, spawn } from "node:child_process";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { INT64_MAX, INT64_MIN } from "@plant-store/contract";
import { afterEach, beforeAll, expect, it } from "vitest";
import { signToken } from "../src/auth/sign-token.js";
import { createLogger } from "../src/logger.js";
import { migratePostgres } from "../src/store/postgres/postgres-plant-store.js";
import { createTestDatabase, describePostgres, type TestDatabase } from "./support/postgres.js";
import { captureOutput } from "@plant-store/test-support/child-output";
import { type CliResult, runCli, startCli } from "./support/cli-process.js";
import { startServerProcess } from "./support/server-process.js";
import { tempDir } from "@plant-store/test-support/temp-dir";
import { querySqliteFile } from "@plant-store/test-support/sqlite-file";
import { fillSqliteStore, type StoredPlant } from "../src/testing/fill-sqlite-store.js";
import { TEST_SECRET } from "./support/test-server.js";

const CLI = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
const scriptMissing = (() => {
  try {
    execFileSync("script", ["--version"], { stdio: "ignore" });
    return false;
  } catch {
    return true;
  }
})();
const PLANTS = 100_000;

// The ids an int64 store gets wrong first: both ends, around zero, and where a double stops being exact.
const EDGE_IDS = [
  INT64_MIN,
  INT64_MIN + 1n,
  -(2n ** 53n) - 1n,
  -(2n ** 53n),
  -1n,
  0n,
  1n,
  2n ** 53n - 1n,
  2n ** 53n,
  2n ** 53n + 1n,
  2n ** 62n,
  INT64_MAX - 1n,
  INT64_MAX,
];
// Text that an encoding, a length prefix or a NULL-vs-empty mix-up would change.
const EDGE_TEXTS = [
  "",
  " ",
  "🌱 sprout",
  "日本の松",
  "e\u0301 combining",
  'quote " and \\ backslash',
  "tab\tnew\nline",
  "x".repeat(2_000),
];

/** The edge cases, then ids spread over the whole int64 range (i times an odd constant mod 2^64 never repeats). */
function* sourcePlants(): Generator<StoredPlant> {
  const seen = new Set<bigint>();
  let n = 0;
  for (const id of EDGE_IDS) {
    seen.add(id);
    yield {
      id,
      name: EDGE_TEXTS[n % EDGE_TEXTS.length]!,
      tag: n % 3 === 0 ? null : EDGE_TEXTS[(n + 3) % EDGE_TEXTS.length]!,
    };
    n++;
  }
  for (let i = 1n; n < PLANTS; i++) {
    const id = BigInt.asIntN(64, i * 0x9e3779b97f4a7c15n);
    if (seen.has(id)) continue;
    yield { id, name: `plant ${i}`, tag: n % 4 === 0 ? null : n % 4 === 1 ? "" : `tag ${n % 97}` };
    n++;
  }
}

/** The CLI run with `args`, killed with SIGKILL as soon as `started()` resolves true (polled every 20 ms). */
async function runCliKilledOnce(
  args: string[],
  env: Record<string, string>,
  started: () => Promise<boolean>,
): Promise<CliResult> {
  const cli = startCli(args, env);
  let open = true;
  void cli.exited.then(() => {
    open = false;
  });
  while (open && !(await started())) await new Promise((wake) => setTimeout(wake, 20));
  cli.child.kill("SIGKILL");
  return { code: await cli.exited, stdout: cli.stdout(), stderr: cli.stderr() };
}

describePostgres("copy-store: from the SQLite store in DATABASE_URL to PostgreSQL", () => {
  const dir = tempDir("plant-store-copy-");
  const source = join(dir, "plants.db");
  let database: TestDatabase;

  beforeAll(async () => {
    const started = performance.now();
    await fillSqliteStore(source, sourcePlants());
    console.info(`copy-store: ${PLANTS} plants written to SQLite in ${Math.round(performance.now() - started)} ms`);
  });

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    await database.query("DROP SCHEMA public CASCADE; CREATE SCHEMA public");
  });

  it("copies 100,000 plants exactly, edge-case ids and tags too; the server on PostgreSQL then answers each sampled plant's replay 200 and another body 409", async () => {
    const started = performance.now();
    const run = await runCli(["copy-store", "--to", database.url], { DATABASE_URL: source });
    console.info(`copy-store: ${PLANTS} plants copied in ${Math.round(performance.now() - started)} ms`);

    // Work this short prints no progress lines off a terminal (they start after 10 s), and nothing went wrong.
    expect(run.stderr).toBe("");
    expect(run.stdout).toMatch(/^copied 100000, already there 0, conflicts 0 in /m);
    const [, sourceSum] = /^source: 100000 plants, checksum ([0-9a-f]{16})$/m.exec(run.stdout) ?? [];
    expect(run.stdout).toContain(`target: 100000 plants, checksum ${sourceSum}\n`);
    expect(run.stdout).toMatch(/^verified: both sides hold the same plants$/m);
    expect(run.code).toBe(0);

    // Row by row, not only the command's own checksum.
    const expected = querySqliteFile(source, (db) => db.prepare("SELECT id, name, tag FROM plants ORDER BY id").all());
    const copied = await database.rows();
    expect(copied.length).toBe(PLANTS);
    expect(
      copied.filter((row, i) => JSON.stringify(row, bigintText) !== JSON.stringify(expected[i], bigintText)),
    ).toEqual([]);

    // Every replay must be answered by the data (200 or 409), not refused on a busy test machine.
    const server = await startServerProcess({
      DATABASE_URL: database.url,
      JWT_SECRET: TEST_SECRET,
      ADMISSION_CONTROL: "false",
    });
    try {
      const token = signToken({ secret: TEST_SECRET });
      const post = async (body: string) => {
        const res = await fetch(`${server.baseUrl}/plants`, {
          method: "POST",
          headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
          body,
        });
        return { status: res.status, body: await res.json() };
      };
      const sampled = [...sourcePlants()].filter((_, i) => i < EDGE_IDS.length || i % 1_000 === 0);
      for (const plant of sampled) {
        const tag = plant.tag === null ? "" : `, "tag": ${JSON.stringify(plant.tag)}`;
        const replay = await post(`{"id": ${plant.id}, "name": ${JSON.stringify(plant.name)}${tag}}`);
        expect(replay, `replay of ${plant.id}`).toEqual({
          status: 200,
          body: plant.tag === null ? { name: plant.name } : { name: plant.name, tag: plant.tag },
        });
        const other = await post(`{"id": ${plant.id}, "name": "another plant"}`);
        expect(other.status, `another body for ${plant.id}`).toBe(409);
      }
      expect(sampled.length).toBeGreaterThan(100);
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
    }
  }, 120_000);

  it("a run killed midway is finished by the next; a run after that copies nothing and exits 0", async () => {
    // Until the command has migrated the target there is no plants table to count.
    const copiedSome = () =>
      database.query<{ some: boolean }>("SELECT EXISTS (SELECT FROM plants) AS some").then(
        ([row]) => row!.some,
        () => false,
      );
    const killed = await runCliKilledOnce(
      ["copy-store", "--to", database.url, "--batch-size", "1000"],
      { DATABASE_URL: source },
      copiedSome,
    );
    expect(killed.code).toBe(null);
    const partial = (await database.query<{ plants: number }>("SELECT count(*)::int AS plants FROM plants"))[0]!.plants;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(PLANTS);

    const resumed = await runCli(["copy-store", "--to", database.url], { DATABASE_URL: source });
    // What the killed run had stored counts as already there, and only the rest is copied.
    const [, copied, alreadyThere] = /^copied (\d+), already there (\d+), conflicts 0 in /m.exec(resumed.stdout) ?? [];
    expect(Number(alreadyThere)).toBeGreaterThanOrEqual(partial);
    expect(Number(copied) + Number(alreadyThere)).toBe(PLANTS);
    expect(Number(copied)).toBeGreaterThan(0);
    expect(resumed.stdout).toMatch(/^verified: /m);
    expect(resumed.code).toBe(0);

    const again = await runCli(["copy-store", "--to", database.url], { DATABASE_URL: source });
    expect(again.stdout).toContain(`copied 0, already there ${PLANTS}, conflicts 0 in `);
    expect(again.stdout).toMatch(/^verified: /m);
    expect(again.code).toBe(0);
    expect(await database.query("SELECT count(*)::int AS plants FROM plants")).toEqual([{ plants: PLANTS }]);
  }, 120_000);

  it("the documented move: a run while a server writes to the store copies a consistent snapshot; after the server stops, a second run brings every acknowledged plant", async () => {
    const live = join(dir, "live.db");
    copyFileSync(source, live);
    const server = await startServerProcess({ DATABASE_URL: live, JWT_SECRET: TEST_SECRET });
    const token = signToken({ secret: TEST_SECRET });
    const acknowledged: bigint[] = [];
    let writing = true;
    // Sequential creates for as long as the first run lasts, of ids from 1,000,000 up: none is in the source.
    const writer = (async () => {
      for (let id = 1_000_000n; writing; id++) {
        const res = await fetch(`${server.baseUrl}/plants`, {
          method: "POST",
          headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
          body: `{"id": ${id}, "name": "written during the copy"}`,
        });
        // Only a 200 acknowledges: any other answer, a 503 Overloaded refusal included, wrote nothing.
        if (res.status === 200) acknowledged.push(id);
        await res.body?.cancel();
      }
    })();
    try {
      const during = await runCli(["copy-store", "--to", database.url], { DATABASE_URL: live });
      expect(during.stdout).toMatch(/^verified: /m);
      expect(during.code).toBe(0);
    } finally {
      writing = false;
      await writer;
      server.child.kill("SIGTERM");
      await server.exited;
    }
    expect(acknowledged.length).toBeGreaterThan(0);

    const after = await runCli(["copy-store", "--to", database.url], { DATABASE_URL: live });
    expect(after.stdout).toMatch(/^verified: /m);
    expect(after.code).toBe(0);
    const moved = await database.query<{ id: bigint }>("SELECT id FROM plants WHERE name = 'written during the copy'");
    expect(moved.map((row) => row.id).sort((a, b) => (a < b ? -1 : 1))).toEqual(acknowledged);
  }, 120_000);

  it.skipIf(scriptMissing)(
    `on a terminal it redraws one progress line${scriptMissing ? " (skipped: util-linux's script is not installed)" : ""}`,
    async () => {
      // script(1) runs the command on a pseudo-terminal: a real TTY, as an operator's shell gives it.
      const command = [process.execPath, CLI, "copy-store", "--to", database.url, "--batch-size", "500"]
        .map((arg) => `'${arg}'`)
        .join(" ");
      const script = captureOutput(
        spawn("script", ["-qec", command, "/dev/null"], {
          env: { PATH: process.env.PATH ?? "", DATABASE_URL: source },
        }),
      );
      const run = { code: await script.closed, stdout: script.stdout() };
      // Each redraw goes back to the line's start and erases it (CR, ESC [K), then draws the bar.
      expect(run.stdout).toContain("\r\u001b[K[");
      expect(run.stdout).toMatch(/\[[#-]{20}\] +\d+% \d+\/100000 plants, \d+ plants\/s, \d+ s left/);
      expect(run.stdout).toMatch(/^verified: both sides hold the same plants\r?$/m);
      expect(run.code).toBe(0);
    },
    120_000,
  );

  it("an id the target holds with other data is a conflict: listed by id, the target's row kept, exit 2", async () => {
    await migratePostgres({ connectionString: database.url, connectTimeoutMs: 3_000, logger: createLogger("silent") });
    const planted = 2n ** 53n + 1n;
    await database.query("INSERT INTO plants (id, name, tag) VALUES ($1, 'planted', NULL)", [planted.toString()]);

    const run = await runCli(["copy-store", "--to", database.url], { DATABASE_URL: source });
    expect(run.stdout).toMatch(/^copied 99999, already there 0, conflicts 1 in /m);
    expect(run.stdout).toMatch(
      new RegExp(`^conflict: id ${planted}: source \\{.*\\}, target \\{"name":"planted"\\}$`, "m"),
    );
    expect(run.stdout).toMatch(/^not verified: 1 id holds other data in the target; settle it and run again$/m);
    expect(run.code).toBe(2);
    expect(await database.query("SELECT name FROM plants WHERE id = $1", [planted.toString()])).toEqual([
      { name: "planted" },
    ]);
  }, 120_000);
});

function bigintText(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}
