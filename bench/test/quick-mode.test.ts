import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { skipWithoutWrk } from "./support/wrk.js";

const RUN = fileURLToPath(new URL("../dist/src/run.js", import.meta.url));
const run = promisify(execFile);

const skip = skipWithoutWrk("the quick benchmark");

interface QuickReport {
  answers: Record<string, { status: number; body: string }>;
  measurements: {
    label: string;
    connections: number;
    load: { requests: number; non2xx: number; socketErrors: number };
    threadCpuMicrosPerRequest: Record<string, number>;
  }[];
}

describe.skipIf(skip)("pnpm bench -- --mode quick", () => {
  const out = mkdtempSync(join(tmpdir(), "plant-store-bench-quick-"));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("loads all six servers with valid creates, every one answered 200, and writes the report and chart", async () => {
    await run(process.execPath, [RUN, "--mode", "quick", "--out", out], { timeout: 170_000 });

    const report = JSON.parse(readFileSync(join(out, "benchmarks.json"), "utf8")) as QuickReport;
    const labels = Object.keys(report.answers);
    expect(labels).toHaveLength(6);
    for (const answer of Object.values(report.answers)) expect(answer.status).toBe(200);
    for (const label of labels) {
      for (const connections of [50, 100]) {
        const runs = report.measurements.filter((m) => m.label === label && m.connections === connections);
        expect(runs, `${label} at ${connections} connections`).toHaveLength(2);
        for (const m of runs) {
          expect(m.load.requests).toBeGreaterThan(0);
          expect(m.load.non2xx).toBe(0);
          expect(m.load.socketErrors).toBe(0);
        }
      }
    }

    // Plant Store's commit runs on its named writer thread (counted over its rounds: a 1 s round may hold only a
    // clock tick of it); the other servers have none and store, if at all, on their main thread.
    const writerCpu = (label: string) =>
      report.measurements
        .filter((m) => m.label === label)
        .reduce((sum, m) => sum + m.threadCpuMicrosPerRequest["SQLite writer thread"]!, 0);
    for (const label of labels) {
      if (label.startsWith("(1)")) expect(writerCpu(label), label).toBeGreaterThan(0);
      else expect(writerCpu(label), label).toBe(0);
    }

    const markdown = readFileSync(join(out, "benchmarks.md"), "utf8");
    for (const label of labels) expect(markdown).toContain(`| ${label} |`);
    expect(markdown).toContain("## Targets");
    for (const connections of [50, 100]) {
      expect(markdown).toMatch(
        new RegExp(`\\| \\(1\\) req/s vs \\(5\\) tuned peer, ${connections} connections \\| >= 1.25x \\| [\\d.]+x`),
      );
      expect(markdown).toMatch(
        new RegExp(
          `\\| \\(1\\) CPU per request vs \\(5\\) tuned peer, ${connections} connections \\| <= 0.8x \\| [\\d.]+x`,
        ),
      );
      expect(markdown).toMatch(
        new RegExp(`\\| \\(1\\) req/s vs \\(2\\) bare Express, ${connections} connections \\| >= 1x \\|`),
      );
    }
    expect(markdown).toContain("| (1) p99 at 50 connections | <= 10 ms |");
    // Every server's ratios to the platform limit, bare node:http, besides those to the framework floor.
    expect(markdown).toContain("**Against the platform limit, (3) bare node:http:**");
    expect(markdown).toContain("req/s vs (3): median (min–max)");
    // What the CPU target leaves after node:http and the commit, and every server's CPU by thread.
    expect(markdown).toContain("## What the CPU target leaves");
    expect(markdown).toMatch(
      /\| \*\*left for the rest of \(1\)'s work: target − \(3\) − writer\*\* \| \*\*-?[\d.]+\*\* \| \*\*-?[\d.]+\*\* \|/,
    );
    expect(markdown).toMatch(/\| of the gap, Express as \(1\) runs it: \(6\) − \(3\) \| -?[\d.]+ /);
    expect(markdown).toContain("| Connections | Server | main thread | SQLite writer thread |");
    expect(readFileSync(join(out, "benchmarks.svg"), "utf8")).toMatch(/^<svg[^>]*>[\s\S]*<\/svg>$/);
  }, 180_000);
});
