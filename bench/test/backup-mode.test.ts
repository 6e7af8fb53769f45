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

const skip = skipWithoutWrk("the backup mode");

describe.skipIf(skip)("pnpm bench -- --mode backup", () => {
  const out = mkdtempSync(join(tmpdir(), "plant-store-bench-backup-"));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("loads a prefilled store, takes snapshots by each method beside it and beside a writer alone, and reports both", async () => {
    const args = [
      "--mode",
      "backup",
      "--rows",
      "20000",
      "--rate",
      "500",
      "--rounds",
      "1",
      "--warmup",
      "1",
      "--seconds",
      "1",
      "--out",
      out,
    ];
    const { stdout } = await run(process.execPath, [RUN, ...args], { timeout: 110_000 });

    expect(stdout).toMatch(/^round 1: plant-store backup in [\d.]+ s$/m);
    expect(stdout).toMatch(/^round 1: VACUUM INTO in [\d.]+ s$/m);
    const markdown = readFileSync(join(out, "benchmarks-backup.md"), "utf8");
    expect(markdown).toMatch(/^Creates: \d+ sent, \d+ answered 200, \d+ failed/m);
    expect(markdown).toMatch(/^\| without a snapshot \| [1-9]\d* \| [\d.]+ \| [\d.]+ \| [\d.]+ \| {2}\|$/m);
    expect(markdown).toMatch(/^\| during plant-store backup \| \d+ \| .* \| [\d.]+-[\d.]+ s, [\d.]+ MB \|$/m);
    expect(markdown).toMatch(
      /^\| p99 of a commit \(the writer alone\) during `plant-store backup` against without one \| at most 5 ms more \| [\d.]+ ms against [\d.]+ ms \|/m,
    );
  }, 120_000);
});
