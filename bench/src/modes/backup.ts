import { type ChildProcess, execFile, spawn } from "node:child_process";
import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { pinned } from "../cpu-pinning.js";
import { checkAnswers } from "../measure.js";
import type { BenchOptions } from "../options.js";
import { header, targetTable } from "../report.js";
import { type Session, withSession, writeOutputs } from "../session.js";
import { quantile } from "../stats.js";
import { prefilledServer } from "./prefill.js";

const LOADER = fileURLToPath(new URL("../fixed-rate-load.js", import.meta.url));
const COMMIT_PROBE = fileURLToPath(new URL("../commit-probe.js", import.meta.url));
const VACUUM_INTO = fileURLToPath(new URL("../vacuum-into.js", import.meta.url));
const CLI = fileURLToPath(import.meta.resolve("@plant-store/server/cli"));
const run = promisify(execFile);

type Method = "plant-store backup" | "VACUUM INTO";

/** When one snapshot's process ran (epoch ms), and the size of what it wrote. */
interface Window {
  method: Method;
  from: number;
  to: number;
  bytes: number;
}

/** Latencies by when their operation started: `samples` are [ms since startedAt, ms it took]. */
interface Timed {
  startedAt: number;
  samples: [number, number][];
}

const ms = (value: number) => value.toFixed(1);
const pause = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

/** Starts a measuring process whose last line is `<marker> {json}` once it gets SIGTERM. */
function startMeasuring(session: Session, pin: string[], args: string[], marker: string) {
  const [command, commandArgs] = pinned(pin, process.execPath, args);
  const child: ChildProcess = spawn(command, commandArgs, { stdio: ["ignore", "pipe", "inherit"] });
  let output = "";
  child.stdout!.on("data", (chunk) => {
    output += chunk;
  });
  const closed = new Promise<void>((resolve) => child.on("close", () => resolve()));
  session.onClose(async () => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });
  return {
    /** Stops it and parses its result. */
    stop: async <T>(): Promise<T> => {
      child.kill("SIGTERM");
      await closed;
      const found = new RegExp(`${marker} (\\{.*\\})`).exec(output);
      if (!found) throw new Error(`${args[0]} printed no result:\n${output}`);
      return JSON.parse(found[1]!) as T;
    },
  };
}

/** `--rounds` snapshots by each of `methods` beside the running writer, `--seconds` apart, after the warm-up. */
async function snapshotRounds(
  session: Session,
  options: BenchOptions,
  databaseFile: string,
  methods: Method[],
): Promise<Window[]> {
  const windows: Window[] = [];
  await pause(options.warmupSeconds);
  for (let round = 1; round <= options.rounds; round++) {
    for (const method of methods) {
      await pause(options.seconds);
      const snapshot = join(session.dir, `snapshot-${round}.db`);
      // On the load generator's core: a sidecar has CPU of its own, and the server's core stays the server's.
      const [command, args] = pinned(
        session.pin.load,
        process.execPath,
        method === "VACUUM INTO" ? [VACUUM_INTO, databaseFile, snapshot] : [CLI, "backup", snapshot],
      );
      const from = Date.now();
      await run(command, args, { env: { ...process.env, DATABASE_URL: databaseFile } });
      const to = Date.now();
      windows.push({ method, from, to, bytes: statSync(snapshot).size });
      rmSync(snapshot);
      process.stdout.write(`round ${round}: ${method} in ${ms((to - from) / 1000)} s\n`);
    }
  }
  await pause(options.seconds);
  return windows;
}

/** The latencies after the warm-up, split by the snapshot method whose process overlapped them ("" for none). */
function split(timed: Timed, windows: Window[], warmupSeconds: number): Map<Method | "", number[]> {
  const groups = new Map<Method | "", number[]>([
    ["", []],
    ["plant-store backup", []],
    ["VACUUM INTO", []],
  ]);
  for (const [at, latency] of timed.samples) {
    const start = timed.startedAt + at;
    if (at < warmupSeconds * 1000) continue;
    const window = windows.find((w) => start <= w.to && start + latency >= w.from);
    groups.get(window?.method ?? "")!.push(latency);
  }
  return groups;
}

function table(what: string, groups: Map<Method | "", number[]>, windows: Window[]): string[] {
  const row = (label: string, latencies: number[], snapshots: Window[]) => {
    const seconds = snapshots.map((w) => (w.to - w.from) / 1000);
    const snapshot =
      seconds.length === 0
        ? ""
        : `${ms(Math.min(...seconds))}-${ms(Math.max(...seconds))} s, ${(snapshots[0]!.bytes / 1e6).toFixed(1)} MB`;
    return `| ${label} | ${latencies.length} | ${ms(quantile(latencies, 0.5))} | ${ms(quantile(latencies, 0.99))} | ${ms(Math.max(...latencies))} | ${snapshot} |`;
  };
  const methods = [...groups.keys()].filter(
    (method): method is Method => method !== "" && groups.get(method)!.length > 0,
  );
  return [
    `| ${what} | n | p50 ms | p99 ms | max ms | snapshot |`,
    "|---|---:|---:|---:|---:|---|",
    row("without a snapshot", groups.get("")!, []),
    ...methods.map((method) =>
      row(
        `during ${method}`,
        groups.get(method)!,
        windows.filter((w) => w.method === method),
      ),
    ),
    "",
  ];
}

/**
 * What a snapshot taken beside the server costs its writes, on a store of `--rows` plants. First, creates over
 * HTTP at `--rate` per second while `plant-store backup` and, for comparison, VACUUM INTO (on a connection of its
 * own) each run `--rounds` times, `--seconds` apart, in processes of their own as the sidecar would. Then the
 * server stopped, a writer committing as the store's does, about once a millisecond, beside `plant-store backup`
 * alone: the commit's own stall, without HTTP and admission control in between.
 */
export async function backup(options: BenchOptions) {
  return withSession(async (session) => {
    const server = await prefilledServer(session, options.rows);
    const databaseFile = join(session.dir, "prefilled", "plants.db");
    await checkAnswers(server, session.token, options.rows + 1);
    // Longer than the plan can take: the load is stopped once the snapshots are done.
    const loadArgs = [
      LOADER,
      server.baseUrl,
      session.token,
      String(options.rate),
      "3600",
      String(options.rows + 2),
      "latencies",
    ];
    const loader = startMeasuring(session, session.pin.load, loadArgs, "FIXED_RATE_RESULT");
    const httpWindows = await snapshotRounds(session, options, databaseFile, ["plant-store backup", "VACUUM INTO"]);
    const load = await loader.stop<{
      sent: number;
      ok: number;
      failed: number;
      failures: Record<string, number>;
      startedAt: number;
      latencies: [number, number][];
    }>();
    const creates = split({ startedAt: load.startedAt, samples: load.latencies }, httpWindows, options.warmupSeconds);

    await server.stop();
    const probe = startMeasuring(
      session,
      session.pin.server,
      [COMMIT_PROBE, databaseFile, String(options.rows * 10)],
      "COMMIT_PROBE_RESULT",
    );
    const commitWindows = await snapshotRounds(session, options, databaseFile, ["plant-store backup"]);
    const probed = await probe.stop<{ startedAt: number; commits: [number, number][] }>();
    const commits = split(
      { startedAt: probed.startedAt, samples: probed.commits },
      commitWindows,
      options.warmupSeconds,
    );

    // NaN (printed as such, never met) when no operation overlapped a snapshot.
    const p99 = (groups: Map<Method | "", number[]>, method: Method | "") =>
      groups.get(method)!.length === 0 ? Number.NaN : quantile(groups.get(method)!, 0.99);
    const markdown = [
      ...header({
        title: `Plant Store benchmark: writes during a backup of ${options.rows} plants`,
        command: options.command,
        startedAt: session.startedAt,
        environment: session.environment,
        pinning: `${session.pin.description}; each snapshot's process on the load generator's core`,
        plan: `${options.rate} creates/s (a Node fixed-rate generator, keep-alive), then a writer alone; each ${options.warmupSeconds} s warm-up, then ${options.rounds} rounds of ${options.seconds} s without a snapshot and one snapshot by each method`,
        notes: options.notes,
      }),
      `Creates: ${load.sent} sent, ${load.ok} answered 200, ${load.failed} failed` +
        (load.failed > 0
          ? ` (${Object.entries(load.failures)
              .map(([reason, count]) => `${reason}: ${count}`)
              .join(", ")}).`
          : "."),
      "A create or commit counts as during a snapshot when it and the snapshot's process overlap in time.",
      "",
      ...targetTable([
        {
          what: "p99 of creates during `plant-store backup` against without one",
          goal: "at most 5 ms more, no create failed",
          measured: `${ms(p99(creates, "plant-store backup"))} ms against ${ms(p99(creates, ""))} ms`,
        },
        {
          what: "p99 of a commit (the writer alone) during `plant-store backup` against without one",
          goal: "at most 5 ms more",
          measured: `${ms(p99(commits, "plant-store backup"))} ms against ${ms(p99(commits, ""))} ms`,
        },
      ]),
      "## Creates over HTTP",
      "",
      ...table("Creates", creates, httpWindows),
      "## A writer's commits alone (WAL, synchronous=FULL, one insert per transaction, about once a millisecond)",
      "",
      ...table("Commits", commits, commitWindows),
    ].join("\n");
    writeOutputs(options.outDir, { "benchmarks-backup.md": markdown });
    return { files: ["benchmarks-backup.md"] };
  });
}
