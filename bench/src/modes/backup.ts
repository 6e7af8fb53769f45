import { execFile, spawn } from "node:child_process";
import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { pinned } from "../cpu-pinning.js";
import { checkAnswers } from "../measure.js";
import type { BenchOptions } from "../options.js";
import { header, targetTable } from "../report.js";
import { withSession, writeOutputs } from "../session.js";
import { quantile } from "../stats.js";
import { prefilledServer } from "./prefill.js";

const LOADER = fileURLToPath(new URL("../fixed-rate-load.js", import.meta.url));
const VACUUM_INTO = fileURLToPath(new URL("../vacuum-into.js", import.meta.url));
const CLI = fileURLToPath(import.meta.resolve("@plant-store/server/dist/cli.js"));
const run = promisify(execFile);

type Method = "plant-store backup" | "VACUUM INTO";

interface Window {
  method: Method;
  from: number;
  to: number;
  bytes: number;
}

interface LoadResult {
  sent: number;
  ok: number;
  failed: number;
  failures: Record<string, number>;
  startedAt: number;
  latencies: [number, number][];
}

const ms = (value: number) => value.toFixed(1);

/**
 * Creates at a fixed rate against a store of `--rows` plants while snapshots are taken beside the server, in
 * its own process as the sidecar would: `plant-store backup` (the backup API in one read transaction) and,
 * for comparison, VACUUM INTO on a connection of its own, each `--rounds` times with `--seconds` of plain
 * load between. Compares the creates' latency while a snapshot runs with the latency without one.
 */
export async function backup(options: BenchOptions) {
  return withSession(async (session) => {
    const server = await prefilledServer(session, options.rows);
    const databaseFile = join(session.dir, "prefilled", "plants.db");
    await checkAnswers(server, session.token, options.rows + 1);
    const [command, args] = pinned(session.pin.load, process.execPath, [
      LOADER,
      server.baseUrl,
      session.token,
      String(options.rate),
      // Longer than the plan can take: the load is stopped once the snapshots are done.
      String(3600),
      String(options.rows + 2),
      "latencies",
    ]);
    const loader = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"] });
    let loaderOutput = "";
    loader.stdout.on("data", (chunk) => {
      loaderOutput += chunk;
    });
    const loaderDone = new Promise<void>((resolve) => loader.on("close", () => resolve()));
    const pause = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const windows: Window[] = [];
    try {
      await pause(options.warmupSeconds);
      for (let round = 1; round <= options.rounds; round++) {
        for (const method of ["plant-store backup", "VACUUM INTO"] as const) {
          await pause(options.seconds);
          const snapshot = join(session.dir, `snapshot-${round}-${method === "VACUUM INTO" ? "vacuum" : "backup"}.db`);
          const from = Date.now();
          // On the load generator's core: a sidecar has CPU of its own, and the server's core stays the server's.
          const [snapshotCommand, snapshotArgs] = pinned(
            session.pin.load,
            process.execPath,
            method === "VACUUM INTO" ? [VACUUM_INTO, databaseFile, snapshot] : [CLI, "backup", snapshot],
          );
          await run(snapshotCommand, snapshotArgs, { env: { ...process.env, DATABASE_URL: databaseFile } });
          const to = Date.now();
          windows.push({ method, from, to, bytes: statSync(snapshot).size });
          rmSync(snapshot);
          process.stdout.write(`round ${round}: ${method} in ${ms((to - from) / 1000)} s\n`);
        }
      }
      await pause(options.seconds);
    } finally {
      loader.kill("SIGTERM");
      await loaderDone;
    }
    const result = JSON.parse(/FIXED_RATE_RESULT (\{.*\})/.exec(loaderOutput)![1]!) as LoadResult;
    const warmupEnd = result.startedAt + options.warmupSeconds * 1000;
    const during = new Map<Method, number[]>([
      ["plant-store backup", []],
      ["VACUUM INTO", []],
    ]);
    const without: number[] = [];
    for (const [sentAt, latency] of result.latencies) {
      const start = result.startedAt + sentAt;
      if (start < warmupEnd) continue;
      const window = windows.find((w) => start <= w.to && start + latency >= w.from);
      if (window) during.get(window.method)!.push(latency);
      else without.push(latency);
    }
    const row = (what: string, latencies: number[], snapshots: Window[]) => {
      const seconds = snapshots.map((w) => (w.to - w.from) / 1000);
      return `| ${what} | ${latencies.length} | ${ms(quantile(latencies, 0.5))} | ${ms(quantile(latencies, 0.99))} | ${ms(Math.max(...latencies))} | ${
        seconds.length === 0 ? "" : `${ms(Math.min(...seconds))}-${ms(Math.max(...seconds))} s, ${(snapshots[0]!.bytes / 1e6).toFixed(1)} MB`
      } |`;
    };
    const p99Without = quantile(without, 0.99);
    const backupLatencies = during.get("plant-store backup")!;
    const p99Backup = quantile(backupLatencies, 0.99);
    const markdown = [
      ...header({
        title: `Plant Store benchmark: creates during a backup of ${options.rows} plants`,
        command: options.command,
        startedAt: session.startedAt,
        environment: session.environment,
        pinning: `${session.pin.description}; the snapshot's process on the load generator's core`,
        plan: `${options.rate} creates/s (a Node fixed-rate generator, keep-alive); ${options.warmupSeconds} s warm-up, then ${options.rounds} rounds of ${options.seconds} s without a snapshot and one snapshot by each method`,
        notes: options.notes,
      }),
      `Creates: ${result.sent} sent, ${result.ok} answered 200, ${result.failed} failed` +
        (result.failed > 0 ? ` (${Object.entries(result.failures).map(([reason, count]) => `${reason}: ${count}`).join(", ")}).` : "."),
      "A create counts as during a snapshot when its request and the snapshot's process overlap in time.",
      "",
      ...targetTable([
        {
          what: "p99 of creates during `plant-store backup` against without one",
          goal: "a few ms more at most",
          measured: `${ms(p99Backup)} ms against ${ms(p99Without)} ms`,
          met: p99Backup - p99Without <= 5 && result.failed === 0,
        },
      ]),
      "| Creates | n | p50 ms | p99 ms | max ms | snapshot |",
      "|---|---:|---:|---:|---:|---|",
      row("without a snapshot", without, []),
      row("during `plant-store backup`", backupLatencies, windows.filter((w) => w.method === "plant-store backup")),
      row("during VACUUM INTO", during.get("VACUUM INTO")!, windows.filter((w) => w.method === "VACUUM INTO")),
      "",
    ].join("\n");
    writeOutputs(options.outDir, { "benchmarks-backup.md": markdown });
    return { files: ["benchmarks-backup.md"] };
  });
}
