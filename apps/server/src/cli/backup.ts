import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { constants, setPriority } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type Snapshot, writeSnapshot } from "../store-operations/snapshot.js";
import { type BackupMetrics, createBackupMetrics, serveBackupMetrics } from "./backup-metrics.js";
import { type Command, onePositional, oneLine, portNumber, positiveNumber } from "./command.js";
import { formatBytes, progressLine } from "./progress.js";
import { CommandError } from "../operator-errors.js";

const DEFAULT_EVERY_MINUTES = 60;
const DEFAULT_KEEP = 24;
/** The longest wait a timer takes (2^31 - 1 ms, about 24.8 days): a longer one fires at once, so is refused. */
const MAX_EVERY_MINUTES = Math.floor((2 ** 31 - 1) / 60_000);
/**
 * The shortest interval, 1 s: snapshot names carry the second a snapshot started in, so two started within one
 * second would share a name and the second would replace the first.
 */
const MIN_EVERY_MINUTES = 1 / 60;
/** Scheduled snapshots' names: the UTC time they were started, so names sort by age. */
const SNAPSHOT_NAME = /^plants-\d{8}T\d{6}Z\.db$/;

/** `plant-store backup`: an online snapshot of the SQLite store, once into a file or every N minutes into a folder. */
export const backup: Command = {
  name: "backup",
  usage: ["<file> [--force]", "--dir <dir> [--every <minutes>] [--keep <count>] [--metrics-port <port>]"],
  description: [
    "Copies the SQLite store in DATABASE_URL with SQLite's online backup API while the server goes on serving:",
    "the snapshot holds every plant committed when it started. It is written to <file>.partial and renamed into",
    "place once complete, then the plants it holds, its size and the time it took are printed. An existing <file>",
    "is refused unless --force. Relative paths are from the working folder (apps/server for `pnpm backup`).",
    "",
    `With --dir it keeps running: a snapshot at start, then one every --every minutes (default ${DEFAULT_EVERY_MINUTES}),`,
    `named plants-<UTC time>.db; once a snapshot is complete, all but the newest --keep (default ${DEFAULT_KEEP}) are`,
    "deleted. A failed snapshot is reported and tried again at the next turn; SIGTERM stops it (an unfinished",
    "snapshot is removed) with exit 0. The folder needs room for --keep snapshots and one more. --every takes",
    "fractions of a minute (0.5 is 30 s), down to 1 s (0.0167): snapshot names carry the second they start in.",
    "",
    "With --metrics-port it serves Prometheus metrics at /metrics on that port (on METRICS_HOST, else HOST):",
    "plant_store_backup_last_success_timestamp_seconds, _failures_total, _duration_seconds, _size_bytes and",
    "_interval_seconds. Alert when the last success is older than twice the interval: the rule is in",
    "docs/alerts.md#backups.",
    "",
    "PostgreSQL stores are backed up with pg_dump or point-in-time recovery instead (docs/backup-restore.md).",
  ].join("\n"),
  options: {
    force: { type: "boolean", description: "replace an existing <file>" },
    dir: { type: "string", value: "dir", description: "take snapshots on a schedule into this folder" },
    every: {
      type: "string",
      value: "minutes",
      description: `minutes between two scheduled snapshots; fractions too (0.5 is 30 s), at least 0.0167 (default: ${DEFAULT_EVERY_MINUTES})`,
    },
    keep: {
      type: "string",
      value: "count",
      description: `scheduled snapshots to keep, the newest (default: ${DEFAULT_KEEP})`,
    },
    "metrics-port": {
      type: "string",
      value: "port",
      description: "serve the schedule's Prometheus metrics at /metrics on this port (0: any free one)",
    },
  },
  async run(args, config) {
    const database = config.DATABASE_URL;
    if (database.system !== "sqlite") {
      throw new CommandError(
        "DATABASE_URL names PostgreSQL: back it up with pg_dump or point-in-time recovery (docs/backup-restore.md)",
        { setting: "DATABASE_URL" },
      );
    }
    const storeFile = database.file;
    // A background copy: where it shares a core with the server, the server's requests come first.
    setPriority(constants.priority.PRIORITY_BELOW_NORMAL);
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once("SIGTERM", onSignal).once("SIGINT", onSignal);
    try {
      if (typeof args.values.dir === "string") {
        if (args.positionals.length > 0) throw new CommandError("give a <file> or --dir, not both");
        if (args.values.force !== undefined) throw new CommandError("--force goes with a <file>, not --dir");
        const every = positiveNumber(args, "every", DEFAULT_EVERY_MINUTES);
        if (every > MAX_EVERY_MINUTES)
          throw new CommandError(`--every must be at most ${MAX_EVERY_MINUTES} minutes, not ${every}`, {
            setting: "--every",
          });
        if (every < MIN_EVERY_MINUTES) {
          throw new CommandError(
            `--every must be at least 0.0167 minutes (1 s): snapshots are named by the second they start in, not ${every}`,
            { setting: "--every" },
          );
        }
        const everyMs = every * 60_000;
        const keep = positiveNumber(args, "keep", DEFAULT_KEEP, { integer: true });
        const metricsPort = portNumber(args, "metrics-port");
        const metricsHost = config.METRICS_HOST ?? config.HOST;
        const schedule = { dir: resolve(args.values.dir), everyMs, keep };
        return await backUpEvery(
          storeFile,
          schedule,
          metricsPort === undefined ? undefined : { port: metricsPort, host: metricsHost },
          stop.signal,
        );
      }
      for (const flag of ["every", "keep", "metrics-port"])
        if (args.values[flag] !== undefined) throw new CommandError(`--${flag} goes with --dir`);
      const force = args.values.force === true;
      const destination = resolve(onePositional(args, "the snapshot's <file> (or --dir <dir>)"));
      if (existsSync(destination) && statSync(destination).isDirectory()) {
        throw new CommandError(`${destination} is a folder: give a file name, or --dir for scheduled snapshots`);
      }
      if (destination === resolve(storeFile))
        throw new CommandError(`${destination} is the store itself (DATABASE_URL): the snapshot cannot replace it`);
      if (existsSync(destination) && !force)
        throw new CommandError(`${destination} exists: give another name, or replace it with --force`);
      const snapshot = await backUpOnce(storeFile, destination, stop.signal);
      process.stdout.write(`${describe(snapshot, destination)}\n`);
      return 0;
    } finally {
      process.off("SIGTERM", onSignal).off("SIGINT", onSignal);
    }
  },
};

async function backUpOnce(storeFile: string, destination: string, signal: AbortSignal): Promise<Snapshot> {
  const progress = progressLine();
  try {
    return await writeSnapshot(storeFile, destination, {
      signal,
      onProgress: ({ copiedPages, totalPages }) =>
        progress.update(`backup: ${Math.floor((100 * copiedPages) / totalPages)}% of ${totalPages} pages`),
    });
  } catch (error) {
    if (signal.aborted) throw new CommandError("stopped by a signal: no snapshot written");
    throw error;
  } finally {
    progress.done();
  }
}

async function backUpEvery(
  storeFile: string,
  { dir, everyMs, keep }: { dir: string; everyMs: number; keep: number },
  metricsAt: { port: number; host: string } | undefined,
  signal: AbortSignal,
): Promise<number> {
  // Listening first: a port in use stops the command before it touches the folder.
  const metrics = metricsAt === undefined ? undefined : createBackupMetrics();
  const served =
    metrics === undefined || metricsAt === undefined
      ? undefined
      : await serveBackupMetrics(metrics, metricsAt.port, metricsAt.host);
  try {
    mkdirSync(dir, { recursive: true });
    // Left by a process killed mid-snapshot: never complete, never counted among the kept.
    for (const name of readdirSync(dir))
      if (/^plants-.*\.partial(-wal|-shm|-journal)?$/.test(name)) rmSync(join(dir, name), { force: true });
    if (metrics !== undefined) {
      metrics.interval.set(everyMs / 1000);
      // A restarted sidecar reports the snapshots it finds, so "no success for twice the interval" spans restarts.
      const newest = newestSnapshot(dir);
      if (newest !== undefined) {
        metrics.lastSuccess.set(newest.mtimeMs / 1000);
        metrics.size.set(newest.size);
      }
    }
    process.stdout.write(
      `backing up ${storeFile} into ${dir} every ${everyMs / 60_000} min, keeping the newest ${keep}${served ? `; metrics at ${served.url}` : ""}\n`,
    );
    while (!signal.aborted) {
      const next = Date.now() + everyMs;
      const destination = join(dir, `plants-${new Date().toISOString().replace(/[-:]|\.\d+/g, "")}.db`);
      try {
        const snapshot = await backUpOnce(storeFile, destination, signal);
        record(metrics, snapshot);
        const removed = pruneSnapshots(dir, keep);
        process.stdout.write(`${describe(snapshot, destination)}${removed > 0 ? `; ${removed} older removed` : ""}\n`);
      } catch (error) {
        if (signal.aborted) break;
        metrics?.failures.inc();
        metrics?.lastFailure.set(Date.now() / 1000);
        process.stderr.write(`backup failed: ${oneLine(error)}; next try at ${new Date(next).toISOString()}\n`);
      }
      await sleep(Math.max(0, next - Date.now()), undefined, { signal }).catch(() => {});
    }
  } finally {
    await served?.close();
  }
  process.stdout.write("stopped\n");
  return 0;
}

function record(metrics: BackupMetrics | undefined, snapshot: Snapshot): void {
  if (metrics === undefined) return;
  metrics.lastSuccess.set(Date.now() / 1000);
  metrics.duration.set(snapshot.milliseconds / 1000);
  metrics.size.set(snapshot.bytes);
}

/** The newest scheduled snapshot's file status, or undefined when `dir` holds none. */
function newestSnapshot(dir: string) {
  const newest = readdirSync(dir)
    .filter((name) => SNAPSHOT_NAME.test(name))
    .sort()
    .at(-1);
  return newest === undefined ? undefined : statSync(join(dir, newest));
}

/** Deletes all but the newest `keep` scheduled snapshots in `dir`; other files are left alone. */
function pruneSnapshots(dir: string, keep: number): number {
  const old = readdirSync(dir)
    .filter((name) => SNAPSHOT_NAME.test(name))
    .sort()
    .slice(0, -keep);
  for (const name of old) rmSync(join(dir, name), { force: true });
  return old.length;
}

function describe(snapshot: Snapshot, destination: string): string {
  return `backed up ${snapshot.plants} plants, ${formatBytes(snapshot.bytes)}, in ${(snapshot.milliseconds / 1000).toFixed(1)} s to ${destination}`;
}
