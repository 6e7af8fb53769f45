import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromiumUnavailable, launchChromium } from "@plant-store/test-support/chromium";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectedFetchFakeScenario, FETCH_FAKE_SCENARIO } from "../support/fetch-fake-scenario.js";
import { bundlePage } from "../support/page-bundle.js";
import { startPageServer } from "../support/page-server.js";
import { run } from "../support/run.js";
import { npmInstall, packClient, tempFolder, tscPath } from "../support/scratch-project.js";

const skipReason = chromiumUnavailable();
const fixture = (name: string) => new URL(`../fixtures/${name}`, import.meta.url).pathname;

// The pages are checked as a front-end team's code would be: DOM types, a bundler's resolution and conditions.
const TSCONFIG = {
  compilerOptions: {
    strict: true,
    module: "ESNext",
    moduleResolution: "Bundler",
    customConditions: ["browser"],
    target: "ES2022",
    lib: ["ES2022", "DOM", "DOM.Iterable"],
    types: [],
    skipLibCheck: true,
    noEmit: true,
  },
  include: ["src"],
};

const page = (script: string) => `<!doctype html>
<title>Plant Store fake in a browser</title>
<script type="module" src="/${script}"></script>`;

describe.skipIf(skipReason !== undefined)("the fakes in headless Chromium, from the packed tarballs", () => {
  let scratch: ReturnType<typeof tempFolder>;
  let bundles: { fetchPage: string; mswPage: string };
  let serviceWorker: string;
  let chromium: Browser;

  beforeAll(async () => {
    scratch = tempFolder("plant-store-browser-fakes-");
    const tarballs = await packClient(scratch.path);
    writeFileSync(
      join(scratch.path, "package.json"),
      JSON.stringify({ name: "front-end", private: true, type: "module" }),
    );
    writeFileSync(join(scratch.path, "tsconfig.json"), JSON.stringify(TSCONFIG));
    await npmInstall(scratch.path, [...tarballs, "msw@^3.0.5"]);
    const src = join(scratch.path, "src");
    mkdirSync(src);
    copyFileSync(FETCH_FAKE_SCENARIO, join(src, "browser-fake-scenario.ts"));
    for (const file of ["fetch-fake-page.ts", "msw-page.ts"]) copyFileSync(fixture(file), join(src, file));
    await run(process.execPath, [tscPath, "-p", "."], { cwd: scratch.path });
    bundles = {
      fetchPage: await bundlePage(scratch.path, "fetch-fake-page.ts"),
      mswPage: await bundlePage(scratch.path, "msw-page.ts"),
    };
    serviceWorker = join(scratch.path, "node_modules/msw/lib/mockServiceWorker.js");
    chromium = await launchChromium();
  }, 300_000);

  afterAll(async () => {
    scratch?.remove();
  });

  async function runPage(bundle: string, scripts: Record<string, string> = {}) {
    const server = await startPageServer({
      html: page("page.js"),
      modulePath: bundle,
      scripts: { "/page.js": bundle, ...scripts },
    });
    const browserPage = await chromium.newPage();
    const errors: string[] = [];
    browserPage.on("pageerror", (error) => errors.push(String(error)));
    try {
      await browserPage.goto(`${server.origin}/`);
      await browserPage
        .waitForFunction(() => "scenario" in window, undefined, { timeout: 20_000 })
        .catch((error) => {
          throw new Error(`the page did not finish: ${errors.join("; ") || error}`);
        });
      return await browserPage.evaluate(() => (window as unknown as { scenario: unknown }).scenario);
    } finally {
      await browserPage.close();
      await server.close();
    }
  }

  it("a page using createFakePlantStore's fetch: create, replay, 409, a retry driven by failNext, a lost connection", async () => {
    expect(await runPage(bundles.fetchPage)).toEqual(expectedFetchFakeScenario);
  }, 60_000);

  it("a page using plantStoreHandlers in msw's service worker: the same answers", async () => {
    expect(await runPage(bundles.mswPage, { "/mockServiceWorker.js": serviceWorker })).toEqual(
      expectedFetchFakeScenario,
    );
  }, 60_000);
});

// Without Chromium (and CI unset) the suite is skipped and says why, on the console and in the skipped title.
if (skipReason !== undefined) {
  console.warn(`skipping the browser tests of the fakes: ${skipReason}`);
  describe("the fakes in headless Chromium", () => {
    it.skip(`(skipped: ${skipReason})`, () => undefined);
  });
}
