import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import type { Start } from "../src/modes/starts.js";
import { skipWithoutWrk } from "./support/wrk.js";

const RUN = fileURLToPath(new URL("../dist/src/run.js", import.meta.url));
const run = promisify(execFile);

const skip = skipWithoutWrk("the fresh-starts mode");

describe.skipIf(skip)("pnpm bench -- --mode starts", () => {
  const out = mkdtempSync(join(tmpdir(), "plant-store-bench-starts-"));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("starts the server and the tuned peer anew each round, measures each start and probes the core twice within it", async () => {
    const { stdout } = await run(
      process.execPath,
      [RUN, "--mode", "starts", "--rounds", "2", "--warmup", "1", "--seconds", "1", "--out", out],
      {
        timeout: 110_000,
      },
    );

    const report = JSON.parse(readFileSync(join(out, "benchmarks-starts.json"), "utf8")) as {
      connections: number;
      starts: Start[];
    };
    expect(report.connections).toBe(50);
    // Alternating order: the server first in even rounds, the peer first in odd ones.
    expect(report.starts.map((s) => `${s.index}:${s.server}`)).toEqual([
      "0:plant-store",
      "0:fastify-tuned",
      "1:fastify-tuned",
      "1:plant-store",
    ]);
    for (const start of report.starts) {
      expect(start.requests).toBeGreaterThan(0);
      expect(start.cpuMicrosPerRequest).toBeGreaterThan(0);
      expect(start.probeCpuMs).toHaveLength(2);
      for (const ms of start.probeCpuMs) expect(ms).toBeGreaterThan(0);
    }
    expect(stdout).toMatch(/start 2\/2 plant-store: [\d.]+ us\/req, \d+ req\/s, probe \d+ \/ \d+ ms/);
    const markdown = readFileSync(join(out, "benchmarks-starts.md"), "utf8");
    expect(markdown).toMatch(
      /\| \(1\) Plant Store, full pipeline \| [\d.]+ \([\d.]+–[\d.]+\) \| [\d.]+x \| \d of 2 \| \d \| (?:[\d.]+x over \d|none) \|/,
    );
    expect(markdown).toMatch(/Plant Store \/ tuned peer, CPU per request, start by start: [\d.]+x/);
  }, 120_000);
});
