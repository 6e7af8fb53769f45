import type { AddressInfo } from "node:net";
import { collectDefaultMetrics, Counter, Gauge, Registry } from "prom-client";
import { createLogger } from "../logger.js";
import { closeMetricsServer, createMetricsServer } from "../startup/metrics-server.js";
import { CommandError } from "../operator-errors.js";

/** What `backup --dir --metrics-port` serves: enough to alert on a schedule that stopped producing snapshots. */
export interface BackupMetrics {
  registry: Registry;
  lastSuccess: Gauge;
  failures: Counter;
  lastFailure: Gauge;
  duration: Gauge;
  size: Gauge;
  interval: Gauge;
}

/** The scheduled backup's metrics, with prom-client's process metrics (process_start_time_seconds among them). */
export function createBackupMetrics(): BackupMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    lastSuccess: new Gauge({
      name: "plant_store_backup_last_success_timestamp_seconds",
      help: "When the newest complete snapshot in --dir was finished (at start: one a previous run left), Unix time; 0 when there is none.",
      registers,
    }),
    failures: new Counter({
      name: "plant_store_backup_failures_total",
      help: "Scheduled snapshots that failed (each is tried again at the next turn).",
      registers,
    }),
    // What the failing alert reads: a time is exact and the same after a restart, where a counter's increase over
    // a window is extrapolated and starts again from 0.
    lastFailure: new Gauge({
      name: "plant_store_backup_last_failure_timestamp_seconds",
      help: "When this process's newest scheduled snapshot failed, Unix time; 0 when none has.",
      registers,
    }),
    duration: new Gauge({
      name: "plant_store_backup_duration_seconds",
      help: "How long this process's newest complete snapshot took.",
      registers,
    }),
    size: new Gauge({
      name: "plant_store_backup_size_bytes",
      help: "The size of the newest complete snapshot in --dir.",
      registers,
    }),
    interval: new Gauge({
      name: "plant_store_backup_interval_seconds",
      help: "The schedule's interval (--every), for alert rules that compare the last success with it.",
      registers,
    }),
  };
}

/**
 * Serves GET /metrics on `port` at `host` until the returned close() is called; resolves with its URL once
 * listening. Only failures reach the log (on stderr): a scrape is not worth a line.
 */
export async function serveBackupMetrics(
  metrics: BackupMetrics,
  port: number,
  host: string,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createMetricsServer(metrics.registry, createLogger("warn", process.stderr));
  const address = await new Promise<AddressInfo>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server.address() as AddressInfo);
    });
  }).catch((error: NodeJS.ErrnoException) => {
    throw new CommandError(`--metrics-port ${port}: ${listenProblem(error, `${host}:${port}`)}`, {
      setting: "--metrics-port",
    });
  });
  const shown = address.address.includes(":") ? `[${address.address}]` : address.address;
  return { url: `http://${shown}:${address.port}/metrics`, close: () => closeMetricsServer(server) };
}

function listenProblem(error: NodeJS.ErrnoException, where: string): string {
  if (error.code === "EADDRINUSE")
    return `${where} is already in use (another process, or a server's METRICS_PORT in the same pod)`;
  if (error.code === "EACCES") return `not allowed to listen on ${where} (ports under 1024 need privileges)`;
  if (error.code === "EADDRNOTAVAIL") return `${where}: no interface has that address (METRICS_HOST or HOST)`;
  return `cannot listen on ${where}: ${error.message}`;
}
