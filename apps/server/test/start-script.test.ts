import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  scripts: { start: string };
};

describe("the start script", () => {
  // Its V8 flags (docs/deploying.md) are not a stable API: a Node release whose V8 dropped one would refuse to
  // start the server ("bad option"). This runs them on whatever Node runs the tests (CI: 20 and 24).
  it("starts dist/main.js with Node flags this Node accepts", () => {
    const [command, ...args] = manifest.scripts.start.split(" ");
    expect(command).toBe("node");
    expect(args.at(-1)).toBe("dist/main.js");
    const flags = args.slice(0, -1);
    expect(flags.length).toBeGreaterThan(0);
    expect(
      execFileSync(process.execPath, [...flags, "-e", "process.stdout.write('started')"], { encoding: "utf8" }),
    ).toBe("started");
  });
});
