import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { fillSqliteStore } from "@plant-store/server/testing/fill-sqlite-store";
import { createScratchDatabase, type ScratchDatabase } from "@plant-store/test-support/scratch-postgres";
import { describeEnvironment } from "../environment.js";
import type { BenchOptions } from "../options.js";
import { header } from "../report.js";
import { writeOutputs } from "../session.js";

const CLI = fileURLToPath(import.meta.resolve("@plant-store/server/cli"));
const MIB = 2 ** 20;

/**
 * `rows` plants, ids scattered over the int64 range in the order clients would send them (i times an odd constant
 * mod 2^64 never repeats), with the body the load generator posts (wrk/post-plant.lua).
 */
function* scatteredPlants(rows: number) {
  for (let i = 1n; i <= BigInt(rows); i++)
    yield { id: BigInt.asIntN(64, i * 0x9e3779b97f4a7c15n), name: "Monstera", tag: "tropical" };
}

/** Stores `rows` plants in a migrated SQLite file, then writes its vacuumed copy beside it (`<file>.vacuumed`). */
async function fillStore(file: string, rows: number): Promise<void> {
  await fillSqliteStore(file, scatteredPlants(rows));
  const db = new DatabaseSync(file);
  try {
    db.exec(`VACUUM INTO '${file}.vacuumed'`);
  } finally {
    db.close();
  }
}

/** Runs `plant-store copy-store` as a process; its peak RSS is read from /proc while it runs (VmHWM only grows). */
function copyStore(file: string, to: string): Promise<{ seconds: number; stdout: string; peakRssBytes: number }> {
  const started = performance.now();
  let peakRssBytes = 0;
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [CLI, "copy-store", "--to", to],
      { env: { PATH: process.env.PATH ?? "", DATABASE_URL: file }, maxBuffer: 64 * MIB },
      (error, stdout, stderr) => {
        clearInterval(poll);
        if (error) reject(new Error(`copy-store failed: ${stderr || error.message}`));
        else resolve({ seconds: (performance.now() - started) / 1000, stdout, peakRssBytes });
      },
    );
    const poll = setInterval(() => {
      try {
        const kib = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1];
        if (kib !== undefined) peakRssBytes = Number(kib) * 1024;
      } catch {
        // The process has just exited.
      }
    }, 50);
  });
}

/** Bytes per plant of a SQLite store with its WAL checkpointed, and the time copy-store takes to move it to PostgreSQL. */
export async function copyStoreMode(options: BenchOptions) {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-bench-copy-"));
  let database: ScratchDatabase | undefined;
  const startedAt = new Date();
  try {
    const file = join(dir, "plants.db");
    const started = performance.now();
    await fillStore(file, options.rows);
    const fillSeconds = (performance.now() - started) / 1000;
    const sqliteBytes = statSync(file).size;
    const walBytes = statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    const vacuumedBytes = statSync(`${file}.vacuumed`).size;
    process.stdout.write(`stored ${options.rows} plants in ${fillSeconds.toFixed(1)} s: ${sqliteBytes} bytes\n`);

    database = await createScratchDatabase(options.postgresUrl, "plant_store_bench");
    const url = database.url;
    const first = await copyStore(file, url);
    process.stdout.write(`copied in ${first.seconds.toFixed(1)} s\n`);
    const again = await copyStore(file, url);
    process.stdout.write(`ran again in ${again.seconds.toFixed(1)} s\n`);
    const [sizes] = await database.query<{ plants: string; db: string; version: string }>(
      "SELECT pg_total_relation_size('plants')::text AS plants, pg_database_size(current_database())::text AS db, version() AS version",
    );
    // The rows about the HTTP load generator and the peers say nothing about this mode.
    const machine = describeEnvironment(dir);
    const environment: Record<string, string> = { PostgreSQL: sizes!.version.split(" on ")[0]! };
    for (const key of ["CPU", "Memory", "Kernel", "Node", "SQLite", "Database files"])
      environment[key] = machine[key] ?? "unknown";
    const postgresBytes = Number(sizes!.plants);

    const perPlant = (bytes: number) => (bytes / options.rows).toFixed(1);
    const markdown = [
      ...header({
        title: `copy-store and bytes per plant: ${options.rows} plants`,
        command: options.command,
        startedAt,
        environment,
        pinning: "none",
        plan: `${options.rows} plants (name Monstera, tag tropical, ids scattered over int64) in one transaction; WAL checkpointed (TRUNCATE); copy-store run as a process, then again`,
        notes: options.notes,
      }),
      "| Figure | Value |",
      "|---|---:|",
      `| SQLite file, WAL checkpointed | ${sqliteBytes} bytes (${(sqliteBytes / MIB).toFixed(1)} MiB), ${perPlant(sqliteBytes)} bytes/plant |`,
      `| SQLite WAL after the checkpoint | ${walBytes} bytes |`,
      `| SQLite file after VACUUM INTO | ${vacuumedBytes} bytes, ${perPlant(vacuumedBytes)} bytes/plant |`,
      `| PostgreSQL plants table with its index, after both runs | ${postgresBytes} bytes, ${perPlant(postgresBytes)} bytes/plant |`,
      `| PostgreSQL database | ${sizes!.db} bytes |`,
      `| Filling SQLite directly | ${fillSeconds.toFixed(1)} s |`,
      `| copy-store, first run | ${first.seconds.toFixed(1)} s (${Math.round(options.rows / first.seconds)} plants/s) |`,
      `| copy-store, run again (nothing to copy) | ${again.seconds.toFixed(1)} s |`,
      `| copy-store's peak RSS, first run / run again | ${(first.peakRssBytes / MIB).toFixed(0)} / ${(again.peakRssBytes / MIB).toFixed(0)} MiB |`,
      "",
      "copy-store's output, first run:",
      "",
      "```",
      first.stdout.trimEnd(),
      "```",
      "",
    ].join("\n");
    writeOutputs(options.outDir, { "copy-store.md": markdown });
    return { files: ["copy-store.md"] };
  } finally {
    await database?.drop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}
