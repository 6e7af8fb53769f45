import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import type { OverloadResult } from "../src/modes/overload/mode.js";
import { skipWithoutWrk } from "./support/wrk.js";

const RUN = fileURLToPath(new URL("../dist/src/run.js", import.meta.url));
const run = promisify(execFile);

const skip = skipWithoutWrk("the overload mode");

// A smoke test of the mode's shape: every row present with both servers measured. Its 1 s runs measure nothing,
// and a host's cap may starve the capped server, so no figure is asserted beyond being one.
describe.skipIf(skip)("pnpm bench -- --mode overload --quick", () => {
  const out = mkdtempSync(join(tmpdir(), "plant-store-bench-overload-"));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("runs every row with admission control on and off side by side, and writes the report", async () => {
    await run(process.execPath, [RUN, "--mode", "overload", "--quick", "--out", out], { timeout: 170_000 });
    const node = `node${process.versions.node.split(".")[0]}`;
    const result = JSON.parse(readFileSync(join(out, `overload-${node}.json`), "utf8")) as OverloadResult;

    for (const capped of [false, true]) {
      const rows = result.closed.filter((row) => row.capped === capped);
      expect(rows.map((row) => row.connections)).toEqual([50, 256]);
      for (const row of rows) {
        expect(Object.keys(row.figures).sort()).toEqual(["off", "on"]);
        for (const figures of Object.values(row.figures)) {
          expect(figures.requests).toEqual(expect.any(Number));
          // On the server's own core nothing starves it: each side answered its loop.
          if (!capped) expect(figures.requests).toBeGreaterThan(0);
        }
      }
    }
    expect(result.side.map((run) => run.side).sort()).toEqual(["off", "on"]);
    for (const side of result.side) {
      expect(side.kinds.deadline.sent).toBeGreaterThan(0);
      expect(side.kinds.none.sent).toBeGreaterThan(0);
    }
    expect(result.capacities).toHaveLength(1);
    expect(result.open.map((row) => `${row.kind} ${row.pool ?? ""} ${row.level}x`)).toEqual([
      "pool 64 2x",
      "storm  2x",
    ]);
    for (const row of result.open) {
      expect(Object.keys(row.figures).sort()).toEqual(["off", "on"]);
      for (const figures of Object.values(row.figures)) expect(figures.sent).toBeGreaterThanOrEqual(0);
    }

    const markdown = readFileSync(join(out, `overload-${node}.md`), "utf8");
    for (const section of ["## Closed loops", "## Side requests", "## Open loops under the cap"])
      expect(markdown).toContain(section);
    expect(markdown).toContain("Plant Store, ADMISSION_CONTROL=true** / **Plant Store, ADMISSION_CONTROL=false");
    expect(markdown).toContain("storm: the runtime's limit (libuv accepts one connection per turn)");
  }, 180_000);
});
