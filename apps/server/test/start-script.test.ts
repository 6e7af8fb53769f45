import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  scripts: { start: string };
};
const rootManifest = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
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

  // The root's start execs node itself, so the server gets pnpm's SIGTERM alone and its exit code is pnpm's: through a
  // second pnpm (this package's start), pnpm's own shell took the signal and the run exited 143 after a clean stop.
  it("at the repository's root, builds quietly, then runs this package's start command in apps/server", () => {
    expect(rootManifest.scripts.start).toBe(
      `node apps/server/scripts/build-quietly.mjs && cd apps/server && exec ${manifest.scripts.start}`,
    );
  });
});
