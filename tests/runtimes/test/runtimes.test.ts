import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  expectedFetchFakeScenario,
  FETCH_FAKE_SCENARIO,
} from "@plant-store/consumer-tests/support/fetch-fake-scenario";
import { checkLiveScenarios, LIVE_SCENARIOS } from "@plant-store/consumer-tests/support/live-scenarios";
import { cleanEnv, run } from "@plant-store/consumer-tests/support/run";
import { npmInstall, packClient, tempFolder } from "@plant-store/consumer-tests/support/scratch-project";
import { type RunningServer, startServer } from "@plant-store/consumer-tests/support/server-process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installedRuntimes, PINNED_VERSIONS, type Runtimes } from "../support/runtimes.js";
import { bundleWorker, COMPATIBILITY_DATE, fetchFromWorker, WRANGLER_CONDITIONS } from "../support/workerd.js";

const fixture = (name: string) => new URL(`../fixtures/${name}`, import.meta.url).pathname;

let runtimes: Runtimes;
let scratch: ReturnType<typeof tempFolder>;
let server: RunningServer;

beforeAll(async () => {
  scratch = tempFolder("plant-store-runtimes-");
  const [installed, tarballs] = await Promise.all([installedRuntimes(), packClient(scratch.path)]);
  runtimes = installed;
  writeFileSync(
    join(scratch.path, "package.json"),
    JSON.stringify({ name: "edge-consumer", private: true, type: "module" }),
  );
  await npmInstall(scratch.path, tarballs);
  copyFileSync(FETCH_FAKE_SCENARIO, join(scratch.path, "browser-fake-scenario.ts"));
  copyFileSync(LIVE_SCENARIOS, join(scratch.path, "scenarios.ts"));
  for (const file of ["fake-scenario-entry.ts", "live-scenarios-entry.ts", "worker.ts"]) {
    copyFileSync(fixture(file), join(scratch.path, file));
  }
  server = await startServer();
}, 300_000);

afterAll(async () => {
  await server?.stop();
  scratch?.remove();
});

/** Runs a TypeScript entry of the scratch project in Deno or Bun; resolves with what it printed. */
async function runIn(runtime: "deno" | "bun", entry: string, args: string[] = []): Promise<string> {
  const command =
    runtime === "deno"
      ? { file: runtimes.deno, args: ["run", "--no-prompt", "--allow-net=127.0.0.1", entry, ...args] }
      : { file: runtimes.bun, args: ["--no-install", entry, ...args] };
  // Neither keeps a cache in HOME: Deno's goes into the scratch project, Bun's transpiler cache is off.
  const env = cleanEnv({
    DENO_DIR: join(scratch.path, ".deno"),
    DENO_NO_UPDATE_CHECK: "1",
    BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0",
    DO_NOT_TRACK: "1",
  });
  const { stdout } = await run(command.file, command.args, { cwd: scratch.path, env, timeoutMs: 60_000 });
  return stdout;
}

const installed = (file: string) =>
  expect.stringMatching(new RegExp(`/node_modules/@plant-store/client/${file.replace(".", "\\.")}$`));

describe("the packed client in Deno, Bun and workerd, each from the npm registry at a pinned version", () => {
  it("runs the pinned releases", () => {
    expect(runtimes.versions.deno).toMatch(new RegExp(`^deno ${PINNED_VERSIONS.deno.replaceAll(".", "\\.")} `));
    expect(runtimes.versions.bun).toBe(PINNED_VERSIONS.bun);
    // miniflare pins its workerd; a Worker's compatibility date may not be later than workerd's release.
    expect(runtimes.versions.workerd).toMatch(/^workerd \d{4}-\d{2}-\d{2}$/);
    expect(COMPATIBILITY_DATE <= runtimes.versions.workerd.slice("workerd ".length)).toBe(true);
  });

  it.concurrent.each(["deno", "bun"] as const)(
    "%s: the fetch fake's scenario (a create and its replay, a typed 409, a retried 503, a lost connection, an id beyond 2^53) through the `import` condition",
    async (runtime) => {
      const { scenario, resolved } = JSON.parse(await runIn(runtime, "fake-scenario-entry.ts"));
      expect(scenario).toEqual(expectedFetchFakeScenario);
      expect(resolved).toEqual({ client: installed("dist/index.js"), testing: installed("dist/testing.js") });
    },
    60_000,
  );

  it("workerd (miniflare 4): the same scenario in a Worker bundled with wrangler's conditions, its modules found by miniflare alone", async () => {
    const worker = await bundleWorker(scratch.path, "worker.ts", WRANGLER_CONDITIONS);
    expect(worker.packageFiles.filter((file) => file.startsWith("@plant-store/client/"))).toEqual([
      "@plant-store/client/dist/testing-web.js",
      "@plant-store/client/dist/worker.js",
    ]);
    const response = await fetchFromWorker(runtimes, worker.file);
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual(expectedFetchFakeScenario);
  }, 60_000);

  it("workerd (miniflare 4): without the `worker` condition the bundle's import() of a variable is refused", async () => {
    const worker = await bundleWorker(scratch.path, "worker.ts", ["browser"]);
    expect(worker.packageFiles).toContain("@plant-store/client/dist/index.js");
    await expect(fetchFromWorker(runtimes, worker.file)).rejects.toMatchObject({ code: "ERR_MODULE_DYNAMIC_SPEC" });
  }, 60_000);

  it.concurrent.each([
    ["deno", 3000],
    ["bun", 4000],
  ] as const)(
    "%s against the live server over HTTP: 200, 400, 401 (and refresh), 409, a retried 503, a timeout",
    async (runtime, idBase) => {
      const result = await checkLiveScenarios(server, idBase, (args) =>
        runIn(runtime, "live-scenarios-entry.ts", args),
      );
      expect(result.resolved).toEqual(installed("dist/index.js"));
    },
    60_000,
  );
});
