import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { skipWithoutWrk } from "./support/wrk.js";

const RUN = fileURLToPath(new URL("../dist/src/run.js", import.meta.url));
const run = promisify(execFile);
const POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/test";

/** Whether PostgreSQL holds a database of that name, or why PostgreSQL cannot be asked. */
async function databaseExists(name: string): Promise<boolean | string> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    return (await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])).rowCount === 1;
  } catch (error) {
    return `PostgreSQL unreachable at ${POSTGRES_URL}: ${(error as Error).message}`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const probe = await databaseExists("postgres");
const unreachable = typeof probe === "string" ? probe : undefined;
if (unreachable && process.env.CI !== "true") console.warn(`skipping the PostgreSQL bench: ${unreachable}`);
const skip = skipWithoutWrk("the PostgreSQL bench") || (unreachable !== undefined && process.env.CI !== "true");

describe.skipIf(skip)("pnpm bench -- --database sqlite,postgres", () => {
  const out = mkdtempSync(join(tmpdir(), "plant-store-bench-postgres-"));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("measures the server on SQLite and on a fresh PostgreSQL database side by side, then drops that database", async () => {
    if (unreachable) throw new Error(unreachable);
    const args = [
      "--mode",
      "quick",
      "--servers",
      "plant-store",
      "--database",
      "sqlite,postgres",
      "--postgres-url",
      POSTGRES_URL,
    ];
    await run(process.execPath, [RUN, ...args, "--connections", "50", "--rounds", "1", "--out", out], {
      timeout: 110_000,
    });

    const report = JSON.parse(readFileSync(join(out, "benchmarks.json"), "utf8")) as {
      answers: Record<string, { status: number }>;
      idleRss: Record<string, number>;
      measurements: { label: string; load: { requests: number; non2xx: number } }[];
    };
    const labels = [
      "(1) Plant Store, full pipeline",
      "(1) Plant Store on PostgreSQL",
      "(2) bare Express 5 + express.json() [floor]",
    ];
    expect(Object.keys(report.answers).sort()).toEqual([...labels].sort());
    for (const label of labels) {
      expect(report.answers[label]!.status).toBe(200);
      expect(report.idleRss[label]).toBeGreaterThan(0);
      const runs = report.measurements.filter((m) => m.label === label);
      expect(runs.length).toBeGreaterThan(0);
      for (const m of runs) expect(m.load.non2xx).toBe(0);
    }
    const markdown = readFileSync(join(out, "benchmarks.md"), "utf8");
    const database =
      /\| PostgreSQL \| PostgreSQL \d[^|]*, database (plant_store_bench_[0-9a-f]+), made for this run/.exec(
        markdown,
      )?.[1];
    expect(database).toBeDefined();
    expect(markdown).toContain("| (1) Plant Store on PostgreSQL |");
    expect(markdown).toMatch(/^Idle RSS, each server after its start and one create/m);
    // The run's own database is gone.
    expect(await databaseExists(database!)).toBe(false);
  }, 120_000);
});
