import { mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { runCli, startCli } from "./support/cli-process.js";
import { serverProcesses } from "./support/server-process.js";
import { TEST_SECRET } from "./support/test-server.js";
import { tempDir } from "@plant-store/test-support/temp-dir";

const servers = serverProcesses({
  JWT_SECRET: TEST_SECRET,
  NODE_ENV: "production",
  HOST: "127.0.0.1",
  SHUTDOWN_DELAY_MS: "0",
});

/** One scrape of a Prometheus text endpoint over HTTP: each unlabelled sample by name. */
async function scrape(url: string): Promise<Record<string, number>> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  const samples: Record<string, number> = {};
  for (const line of (await response.text()).split("\n")) {
    const sample = /^([a-z_]+) (\S+)$/.exec(line);
    if (sample) samples[sample[1]!] = Number(sample[2]);
  }
  return samples;
}

const failureLines = (stderr: string) => stderr.match(/^backup failed: .*$/gm)?.length ?? 0;

// 0.02 minutes: a turn every 1.2 s.
const EVERY = "0.02";

describe("backup --dir --metrics-port: the schedule's Prometheus metrics over HTTP", () => {
  it("a failing schedule (no store) counts its failures with no success; once the store exists, the next turn's success shows", async () => {
    const dir = tempDir("plant-store-backup-metrics-");
    const databaseFile = join(dir, "data", "plants.db");
    const backups = join(dir, "backups");
    const started = Date.now() / 1000;
    const scheduled = startCli(["backup", "--dir", backups, "--every", EVERY, "--metrics-port", "0"], {
      DATABASE_URL: databaseFile,
      HOST: "127.0.0.1",
    });
    const [, url] = await scheduled.waitForStdout(/; metrics at (http:\/\/127\.0\.0\.1:\d+\/metrics)\n/);
    await scheduled.waitForStderr(/(^backup failed: there is no SQLite store at .+plants\.db; next try at .+\n){2}/m);

    const failing = await scrape(url!);
    expect(failing.plant_store_backup_failures_total).toBeGreaterThanOrEqual(2);
    expect(failing.plant_store_backup_failures_total).toBeLessThanOrEqual(failureLines(scheduled.stderr()));
    // The failing alert's input (docs/alerts.md): when the newest failure happened.
    expect(failing.plant_store_backup_last_failure_timestamp_seconds).toBeGreaterThanOrEqual(started);
    expect(failing.plant_store_backup_last_failure_timestamp_seconds).toBeLessThanOrEqual(Date.now() / 1000);
    expect(failing).toMatchObject({
      plant_store_backup_last_success_timestamp_seconds: 0,
      plant_store_backup_size_bytes: 0,
      plant_store_backup_duration_seconds: 0,
      plant_store_backup_interval_seconds: 1.2,
    });
    // prom-client's process metrics come with them, as Litestream serves Go's.
    expect(failing.process_start_time_seconds).toBeGreaterThan(0);

    const storeCreated = Date.now() / 1000;
    await servers.start({ DATABASE_URL: databaseFile });
    await scheduled.waitForStdout(/^backed up 0 plants, .+ to (.+\.db)\n/m);
    const succeeding = await scrape(url!);
    const [snapshot] = readdirSync(backups);
    expect(succeeding.plant_store_backup_last_success_timestamp_seconds).toBeGreaterThanOrEqual(storeCreated);
    expect(succeeding.plant_store_backup_last_success_timestamp_seconds).toBeLessThanOrEqual(Date.now() / 1000);
    expect(succeeding.plant_store_backup_size_bytes).toBe(statSync(join(backups, snapshot!)).size);
    expect(succeeding.plant_store_backup_duration_seconds).toBeGreaterThan(0);
    // Every failure printed before the success, and none since.
    expect(succeeding.plant_store_backup_failures_total).toBe(failureLines(scheduled.stderr()));
    expect(succeeding.plant_store_backup_last_failure_timestamp_seconds).toBeLessThanOrEqual(
      succeeding.plant_store_backup_last_success_timestamp_seconds!,
    );

    scheduled.child.kill("SIGTERM");
    expect(await scheduled.exited).toBe(0);
    expect(scheduled.stdout()).toMatch(/\nstopped\n$/);
    await expect(fetch(url!)).rejects.toThrow();
  });

  it("a restarted schedule reports the newest snapshot it finds in --dir as the last success, while its own turns fail", async () => {
    const dir = tempDir("plant-store-backup-metrics-");
    const backups = join(dir, "backups");
    mkdirSync(backups);
    const older = join(backups, "plants-20260101T000000Z.db");
    const newer = join(backups, "plants-20260102T000000Z.db");
    writeFileSync(older, "an older snapshot");
    writeFileSync(newer, "the newest snapshot, longer");
    utimesSync(older, new Date("2026-01-01T00:00:05Z"), new Date("2026-01-01T00:00:05Z"));
    utimesSync(newer, new Date("2026-01-02T00:00:07Z"), new Date("2026-01-02T00:00:07Z"));

    const scheduled = startCli(["backup", "--dir", backups, "--every", EVERY, "--metrics-port", "0"], {
      DATABASE_URL: join(dir, "missing.db"),
      HOST: "127.0.0.1",
    });
    const [, url] = await scheduled.waitForStdout(/; metrics at (\S+)\n/);
    await scheduled.waitForStderr(/^backup failed: /m);
    const metrics = await scrape(url!);
    expect(metrics.plant_store_backup_last_success_timestamp_seconds).toBe(Date.parse("2026-01-02T00:00:07Z") / 1000);
    expect(metrics.plant_store_backup_size_bytes).toBe(statSync(newer).size);
    expect(metrics.plant_store_backup_failures_total).toBeGreaterThanOrEqual(1);
    scheduled.child.kill("SIGTERM");
    expect(await scheduled.exited).toBe(0);
  });

  it("refuses a bad port, a port in use and --metrics-port without --dir: one line, exit 1, no snapshot taken", async () => {
    const dir = tempDir("plant-store-backup-metrics-");
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => new Promise<void>((resolve) => busy.close(() => resolve())));
    const busyPort = (busy.address() as { port: number }).port;
    const env = { DATABASE_URL: join(dir, "plants.db"), HOST: "127.0.0.1" };
    const backups = join(dir, "backups");
    const cases: [string[], string][] = [
      [
        ["--dir", backups, "--metrics-port", "http"],
        'plant-store backup: --metrics-port must be a port number from 0 to 65535, not "http"\n',
      ],
      [
        ["--dir", backups, "--metrics-port", "70000"],
        'plant-store backup: --metrics-port must be a port number from 0 to 65535, not "70000"\n',
      ],
      [
        ["--dir", backups, "--metrics-port", String(busyPort)],
        `plant-store backup: --metrics-port ${busyPort}: 127.0.0.1:${busyPort} is already in use (another process, or a server's METRICS_PORT in the same pod)\n`,
      ],
      [[join(dir, "snapshot.db"), "--metrics-port", "9091"], "plant-store backup: --metrics-port goes with --dir\n"],
    ];
    for (const [args, stderr] of cases) {
      expect({ args, ...(await runCli(["backup", ...args], env)) }).toEqual({ args, code: 1, stdout: "", stderr });
    }
    expect(readdirSync(dir)).toEqual([]);
  }, 40_000); // four runs of the CLI, each a Node start
});
