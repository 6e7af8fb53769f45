import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ErrorCode } from "@plant-store/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FaultProxy, startFaultProxy } from "../support/fault-proxy.js";
import { run } from "../support/run.js";
import { npmInstall, pack, tempFolder, tscPath } from "../support/scratch-project.js";
import { type RunningServer, startServer } from "../support/server-process.js";

const SCENARIOS = new URL("../fixtures/scenarios.ts", import.meta.url);
const FAKE_SCENARIO = new URL("../fixtures/fake-scenario.ts", import.meta.url);

const ENTRY_ESM = `import * as ps from "@plant-store/client";
import { runScenarios } from "./scenarios.mjs";

const [baseUrl, flakyUrl, silentUrl, token, idBase] = process.argv.slice(2) as [string, string, string, string, string];
console.log(JSON.stringify(await runScenarios(ps, { baseUrl, flakyUrl, silentUrl, token, idBase: Number(idBase) })));
`;
const ENTRY_CJS = `import ps = require("@plant-store/client");
import { runScenarios } from "./scenarios.cjs";

const [baseUrl, flakyUrl, silentUrl, token, idBase] = process.argv.slice(2) as [string, string, string, string, string];
runScenarios(ps, { baseUrl, flakyUrl, silentUrl, token, idBase: Number(idBase) }).then((result) => {
  console.log(JSON.stringify(result));
});
`;
const FAKE_ESM = `import * as ps from "@plant-store/client";
import * as testing from "@plant-store/client/testing";
import { runFakeScenario } from "./fake-scenario.mjs";

console.log(JSON.stringify(await runFakeScenario(ps, testing)));
`;
const FAKE_CJS = `import ps = require("@plant-store/client");
import testing = require("@plant-store/client/testing");
import { runFakeScenario } from "./fake-scenario.cjs";

runFakeScenario(ps, testing).then((result) => {
  console.log(JSON.stringify(result));
});
`;
const TSCONFIG = {
  compilerOptions: {
    strict: true,
    module: "NodeNext",
    moduleResolution: "NodeNext",
    target: "ES2022",
    lib: ["ES2022"],
    types: ["node"],
    skipLibCheck: false,
    outDir: "dist",
  },
  include: ["src"],
};

let scratch: ReturnType<typeof tempFolder>;
let server: RunningServer;
const proxies: FaultProxy[] = [];

beforeAll(async () => {
  scratch = tempFolder("plant-store-consumer-");
  const tarballs = await Promise.all(["@plant-store/contract", "@plant-store/client"].map((name) => pack(name, scratch.path)));
  writeFileSync(join(scratch.path, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  writeFileSync(join(scratch.path, "tsconfig.json"), JSON.stringify(TSCONFIG));
  await npmInstall(scratch.path, [...tarballs, "@types/node@^20.19.0"]);
  const src = join(scratch.path, "src");
  await run("mkdir", ["-p", src], { cwd: scratch.path });
  copyFileSync(SCENARIOS, join(src, "scenarios.mts"));
  copyFileSync(SCENARIOS, join(src, "scenarios.cts"));
  writeFileSync(join(src, "esm.mts"), ENTRY_ESM);
  writeFileSync(join(src, "cjs.cts"), ENTRY_CJS);
  copyFileSync(FAKE_SCENARIO, join(src, "fake-scenario.mts"));
  copyFileSync(FAKE_SCENARIO, join(src, "fake-scenario.cts"));
  writeFileSync(join(src, "fake-esm.mts"), FAKE_ESM);
  writeFileSync(join(src, "fake-cjs.cts"), FAKE_CJS);
  server = await startServer();
}, 240_000);

afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
  await server?.stop();
  scratch?.remove();
});

describe("@plant-store/client installed from its packed tarball with npm", () => {
  it("installs with the contract as a versioned dependency, not workspace:", () => {
    const manifest = JSON.parse(readFileSync(join(scratch.path, "node_modules/@plant-store/client/package.json"), "utf8"));
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
  ])("run by %s against the live server: 200, 400, 401 (and refresh), 409, a retried 503, a timeout", async (_how, entry, idBase) => {
    // One proxy answers the first request 503 (Retry-After: 1) and forwards the retry; the other never answers.
    const flaky = await startFaultProxy(server.baseUrl, (n) => (n === 0 ? "unavailable" : "forward"));
    const silent = await startFaultProxy(server.baseUrl, () => "hold");
    proxies.push(flaky, silent);

    const { stdout } = await run(
      process.execPath,
      [entry, server.baseUrl, flaky.url, silent.url, server.token, String(idBase)],
      { cwd: scratch.path, timeoutMs: 30_000 },
    );
    const result = JSON.parse(stdout);

    expect(result.created).toEqual({ status: 200, body: { name: "Monstera", tag: "tropical" } });
    expect(result.plant).toEqual({ name: "Fern" });
    expect(result.badRequest).toEqual({ status: 400, error: ErrorCode.ValidationFailed });
    expect(result.denied).toEqual({ status: 401, body: { error: ErrorCode.InvalidToken, message: "token is malformed" } });
    expect(result.deniedThrown).toEqual({ kind: "PlantStoreApiError", status: 401, code: "InvalidToken", message: "token is malformed" });
    expect(result.refresh).toEqual({ status: 200, tokenRequests: [false, true] });
    expect(result.conflict).toEqual({ status: 409, code: "PlantIdConflict" });
    expect(result.conflictThrown).toMatchObject({ kind: "PlantStoreApiError", status: 409, code: "PlantIdConflict" });
    expect(result.retry).toMatchObject({ status: 200, attempts: 2 });
    expect(result.retry.retriedAfterMs).toBeGreaterThanOrEqual(1000);
    expect(flaky.seen.map((s) => s.action)).toEqual(["unavailable", "forward"]);
    expect(flaky.seen[0]!.body).toBe(flaky.seen[1]!.body);
    expect(result.timedOut).toEqual({ kind: "PlantStoreTimeoutError", timeoutMs: 300 });
    expect(silent.seen).toHaveLength(1);
  }, 60_000);

  it.each([
    ["ESM import", "dist/fake-esm.mjs"],
    ["CommonJS require", "dist/fake-cjs.cjs"],
  ])("@plant-store/client/testing by %s: the fake starts and the client drives it", async (_how, entry) => {
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
  }, 60_000);
});
