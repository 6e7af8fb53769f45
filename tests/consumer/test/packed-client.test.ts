import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeConsumerProject } from "../support/consumer-project.js";
import { checkLiveScenarios } from "../support/live-scenarios.js";
import { run } from "../support/run.js";
import { npmInstall, packClient, tempFolder, tscPath } from "../support/scratch-project.js";
import { type RunningServer, startServer } from "../support/server-process.js";

let scratch: ReturnType<typeof tempFolder>;
let server: RunningServer;

beforeAll(async () => {
  scratch = tempFolder("plant-store-consumer-");
  const tarballs = await packClient(scratch.path);
  writeConsumerProject(scratch.path);
  await npmInstall(scratch.path, [...tarballs, "@types/node@^20.19.0"]);
  server = await startServer();
}, 240_000);

afterAll(async () => {
  await server?.stop();
  scratch?.remove();
});

describe("@plant-store/client installed from its packed tarball with npm", () => {
  it("installs with the contract as a versioned dependency, not workspace:", () => {
    const manifest = JSON.parse(
      readFileSync(join(scratch.path, "node_modules/@plant-store/client/package.json"), "utf8"),
    );
    expect(manifest.dependencies["@plant-store/contract"]).toMatch(/^\^\d+\.\d+\.\d+$/);
  });

  it("a strict NodeNext TypeScript consumer compiles against it, as ESM (.mts) and as CommonJS (.cts)", async () => {
    await run(process.execPath, [tscPath, "-p", "tsconfig.json"], { cwd: scratch.path });
    expect(readFileSync(join(scratch.path, "dist/cjs.cjs"), "utf8")).toContain('require("@plant-store/client")');
    expect(readFileSync(join(scratch.path, "dist/esm.mjs"), "utf8")).toContain('from "@plant-store/client"');
  }, 60_000);

  it.each([
    ["ESM import", "dist/esm.mjs", 1000],
    ["CommonJS require", "dist/cjs.cjs", 2000],
  ])(
    "run by %s against the live server: 200, 400, 401 (and refresh), 409, a retried 503, a timeout",
    async (_how, entry, idBase) => {
      await checkLiveScenarios(server, idBase, async (args) => {
        const { stdout } = await run(process.execPath, [entry, ...args], { cwd: scratch.path, timeoutMs: 30_000 });
        return stdout;
      });
    },
    60_000,
  );

  it.each([
    ["ESM import", "dist/fake-esm.mjs"],
    ["CommonJS require", "dist/fake-cjs.cjs"],
  ])(
    "@plant-store/client/testing by %s: the fake starts and the client drives it",
    async (_how, entry) => {
      const { stdout } = await run(process.execPath, [entry], { cwd: scratch.path, timeoutMs: 30_000 });
      const result = JSON.parse(stdout);
      expect(result.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(result.created).toEqual({ name: "Fern" });
      expect(result.afterLostConnection).toBe(200);
      expect(result.conflict).toEqual({ status: 409, code: "PlantIdConflict" });
      expect(result.plants).toEqual([
        { id: "1", name: "Seeded" },
        { id: "9007199254740993", name: "Fern" },
        { id: "2", name: "Palm" },
      ]);
    },
    60_000,
  );
});
