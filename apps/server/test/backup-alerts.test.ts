import { execFile, execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir } from "@plant-store/test-support/temp-dir";
import { describe, expect, it } from "vitest";
import { createBackupMetrics } from "../src/cli/backup-metrics.js";

// docs/alerts.md's rules, as an operator loads them, evaluated by Prometheus' own engine: promtool's rule unit tests
// (series given minute by minute, alerts expected at given times). Debian's prometheus package has it.

const ALERTS_MD = fileURLToPath(new URL("../../../docs/alerts.md", import.meta.url));

/** The rules docs/alerts.md gives: its one yaml block. */
function documentedRules(): string {
  const blocks = [...readFileSync(ALERTS_MD, "utf8").matchAll(/^```yaml\n([\s\S]*?)^```$/gm)];
  expect(blocks).toHaveLength(1);
  return blocks[0]![1]!;
}

function promtoolMissing(): string | undefined {
  try {
    execFileSync("promtool", ["--version"], { stdio: "ignore" });
    return undefined;
  } catch {
    return "promtool is not installed (Debian: apt-get install prometheus)";
  }
}

interface Alert {
  eval_time: string;
  alertname: string;
  exp_alerts: { exp_labels?: Record<string, string>; exp_annotations?: Record<string, string> }[];
}

/** Runs promtool's unit test of the documented rules on `series` (values a minute apart), expecting `alerts`. */
function promtoolTest(series: Record<string, string>, alerts: Alert[]): Promise<{ code: number; output: string }> {
  const dir = tempDir("plant-store-alerts-");
  writeFileSync(join(dir, "rules.yml"), documentedRules());
  // JSON is YAML: promtool reads it as its test file.
  const test = {
    rule_files: ["rules.yml"],
    evaluation_interval: "1m",
    tests: [
      {
        interval: "1m",
        input_series: Object.entries(series).map(([name, values]) => ({ series: name, values })),
        alert_rule_test: alerts,
      },
    ],
  };
  writeFileSync(join(dir, "test.yml"), JSON.stringify(test));
  return new Promise((resolve) => {
    execFile("promtool", ["test", "rules", join(dir, "test.yml")], (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : Number(error.code), output: `${stdout}${stderr}` }),
    );
  });
}

const failing = (at: string, ago: string): Alert => ({
  eval_time: at,
  alertname: "PlantStoreBackupFailing",
  exp_alerts: [{ exp_annotations: { summary: `A scheduled Plant Store snapshot failed ${ago} ago` } }],
});
const notFailing = (at: string): Alert => ({ eval_time: at, alertname: "PlantStoreBackupFailing", exp_alerts: [] });

const missing = promtoolMissing();
const describePromtool = missing === undefined || process.env.CI === "true" ? describe : describe.skip.bind(describe);

describePromtool("docs/alerts.md's backup rules, evaluated by promtool", () => {
  it("name only metrics the backup command serves", () => {
    const { registry } = createBackupMetrics();
    const names = new Set(documentedRules().match(/plant_store_backup_\w+/g));
    expect(names.size).toBeGreaterThan(0);
    for (const name of names) expect(registry.getSingleMetric(name), name).toBeDefined();
  });

  it("PlantStoreBackupFailing fires from the first scrape that shows a failure, in a sidecar started minutes ago, with how long ago it was, until 2 hours after it", async () => {
    // Started at minute 0, failed at minute 10 (the gauge holds 600, Unix time), never again.
    const result = await promtoolTest({ plant_store_backup_last_failure_timestamp_seconds: "0x9 600x200" }, [
      notFailing("9m"),
      failing("10m", "0s"),
      failing("40m", "30m 0s"),
      failing("129m", "1h 59m 0s"),
      notFailing("130m"),
    ]);
    expect(result, result.output).toMatchObject({ code: 0 });
  });

  it("PlantStoreBackupFailing keeps firing after the sidecar restarts (its gauge back at 0), until 2 hours after the failure", async () => {
    // Failed at minute 10; restarted at minute 30, and nothing failed since.
    const result = await promtoolTest({ plant_store_backup_last_failure_timestamp_seconds: "0x9 600x20 0x200" }, [
      failing("60m", "50m 0s"),
      failing("129m", "1h 59m 0s"),
      notFailing("130m"),
    ]);
    expect(result, result.output).toMatchObject({ code: 0 });
  });

  it("PlantStoreBackupFailing counts each failure from its own time: a second one an hour later extends the alert", async () => {
    const result = await promtoolTest({ plant_store_backup_last_failure_timestamp_seconds: "0x9 600x59 4200x200" }, [
      failing("69m", "59m 0s"),
      failing("70m", "0s"),
      failing("189m", "1h 59m 0s"),
      notFailing("190m"),
    ]);
    expect(result, result.output).toMatchObject({ code: 0 });
  });

  it("PlantStoreBackupStale fires once no snapshot has completed for twice the interval, for 5 minutes", async () => {
    // Hourly; the last success at minute 1 (Unix time 60).
    const result = await promtoolTest(
      { plant_store_backup_interval_seconds: "3600x200", plant_store_backup_last_success_timestamp_seconds: "60x200" },
      [
        { eval_time: "126m", alertname: "PlantStoreBackupStale", exp_alerts: [] },
        {
          eval_time: "127m",
          alertname: "PlantStoreBackupStale",
          exp_alerts: [
            {
              exp_annotations: {
                summary: "No Plant Store snapshot for 2h 6m 0s; the sidecar's stderr says why",
              },
            },
          ],
        },
      ],
    );
    expect(result, result.output).toMatchObject({ code: 0 });
  });

  it("PlantStoreBackupMetricsMissing fires when the sidecar has not been scraped for 15 minutes", async () => {
    const result = await promtoolTest({ 'up{job="plant-store"}': "1x30" }, [
      { eval_time: "14m", alertname: "PlantStoreBackupMetricsMissing", exp_alerts: [] },
      {
        eval_time: "15m",
        alertname: "PlantStoreBackupMetricsMissing",
        exp_alerts: [
          {
            exp_annotations: {
              summary:
                "The backup sidecar is not scraped: it is not running, or Prometheus does not reach port backup-metrics",
            },
          },
        ],
      },
    ]);
    expect(result, result.output).toMatchObject({ code: 0 });
  });
});

if (missing !== undefined && process.env.CI !== "true") console.warn(`skipping docs/alerts.md's rules: ${missing}`);
