import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { skipWithoutWrk } from "./support/wrk.js";
import type { AbRound } from "../src/modes/ab.js";

const RUN = fileURLToPath(new URL("../dist/src/run.js", import.meta.url));
const run = promisify(execFile);

const skip = skipWithoutWrk("the A/B mode");

describe.skipIf(skip)("pnpm bench -- --mode ab", () => {
  const out = mkdtempSync(join(tmpdir(), "plant-store-bench-ab-"));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("loads the built server and the variant at once, round by round, and reports the CPU ratio", async () => {
    const { stdout } = await run(
      process.execPath,
      [
        RUN,
        "--mode",
        "ab",
        "--rounds",
        "2",
        "--seconds",
        "1",
        "--warmup",
        "1",
        "--variant",
        "validating=VALIDATE_RESPONSES=true",
        "--out",
        out,
      ],
      { timeout: 110_000 },
    );

    const report = JSON.parse(readFileSync(join(out, "benchmarks-ab.json"), "utf8")) as {
      variant: unknown;
      rounds: AbRound[];
    };
    expect(report.variant).toEqual({ label: "validating", env: { VALIDATE_RESPONSES: "true" } });
    expect(report.rounds).toHaveLength(2);
    for (const round of report.rounds) {
      expect(round.base.requests).toBeGreaterThan(0);
      expect(round.variant.requests).toBeGreaterThan(0);
      expect(round.ratio).toBeCloseTo(round.variant.cpuMicrosPerRequest / round.base.cpuMicrosPerRequest, 6);
    }
    expect(stdout).toMatch(/round 2\/2: base [\d.]+ us\/req, validating [\d.]+ us\/req/);
    expect(readFileSync(join(out, "benchmarks-ab.md"), "utf8")).toMatch(
      /\*\*validating \/ base, server CPU per request: [\d.]+x/,
    );
  }, 120_000);

  it("refuses to run without exactly one variant", async () => {
    await expect(run(process.execPath, [RUN, "--mode", "ab", "--out", out])).rejects.toMatchObject({
      stderr: expect.stringMatching(/exactly one --variant/),
    });
  });
});
