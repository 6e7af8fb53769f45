import { createRequire } from "node:module";
import { createPlantStoreClient, ErrorCode } from "@plant-store/client";
import { type Browser, chromiumUnavailable, launchChromium } from "@plant-store/test-support/chromium";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPageServer } from "../support/page-server.js";
import { type RunningServer, startServer } from "../support/server-process.js";

const skipReason = chromiumUnavailable();
const browserBuild = createRequire(import.meta.url).resolve("@plant-store/client/browser");

// The page creates a plant with the client's self-contained browser build and publishes what happened.
const PAGE = `<!doctype html>
<title>Plant Store client in a browser</title>
<script type="module">
  import { createPlantStoreClient, PlantStoreApiError } from "/plant-store-client.js";
  const params = new URLSearchParams(location.search);
  const client = createPlantStoreClient({ baseUrl: params.get("api"), token: params.get("token"), retries: 0 });
  try {
    const result = await client.plants.create({ id: 9007199254740993n, name: "Monstera", tag: "tropical" });
    window.plantResult = { status: result.status, body: result.body };
  } catch (error) {
    window.plantResult = { thrown: error.name, message: String(error.message), api: error instanceof PlantStoreApiError };
  }
</script>`;

describe.skipIf(skipReason !== undefined)("the browser build in headless Chromium", () => {
  let server: RunningServer;
  let allowedPage: Awaited<ReturnType<typeof startPageServer>>;
  let otherPage: Awaited<ReturnType<typeof startPageServer>>;
  let chromium: Browser;

  beforeAll(async () => {
    allowedPage = await startPageServer({ html: PAGE, modulePath: browserBuild });
    otherPage = await startPageServer({ html: PAGE, modulePath: browserBuild });
    server = await startServer({ corsOrigins: [allowedPage.origin] });
    chromium = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await allowedPage?.close();
    await otherPage?.close();
  });

  async function createFromPage(origin: string) {
    const page = await chromium.newPage();
    try {
      const query = new URLSearchParams({ api: server.baseUrl, token: server.token });
      await page.goto(`${origin}/?${query}`);
      await page.waitForFunction(() => "plantResult" in window, undefined, { timeout: 15_000 });
      return await page.evaluate(() => (window as unknown as { plantResult: unknown }).plantResult);
    } finally {
      await page.close();
    }
  }

  it("a page on an origin in CORS_ORIGINS creates a plant on the server's other port, bigint id exact", async () => {
    expect(new URL(allowedPage.origin).port).not.toBe(new URL(server.baseUrl).port);
    expect(await createFromPage(allowedPage.origin)).toEqual({
      status: 200,
      body: { name: "Monstera", tag: "tropical" },
    });

    // The plant is stored under exactly 2^53+1: that id now conflicts, 2^53 is still free.
    const node = createPlantStoreClient({ baseUrl: server.baseUrl, token: server.token });
    const conflict = await node.plants.create({ id: 9007199254740993n, name: "Other" });
    expect(conflict.status).toBe(409);
    if (conflict.status === 409) expect(conflict.body.error).toBe(ErrorCode.PlantIdConflict);
    expect((await node.plants.create({ id: 9007199254740992n, name: "Other" })).status).toBe(200);
  }, 30_000);

  it("a page on an origin not in CORS_ORIGINS is refused by the browser", async () => {
    const result = await createFromPage(otherPage.origin);
    expect(result).toMatchObject({ thrown: "TypeError", api: false });
  }, 30_000);
});

// Without Chromium (and CI unset) the suite is skipped and says why, on the console and in the skipped title.
if (skipReason !== undefined) {
  console.warn(`skipping the consumer browser tests: ${skipReason}`);
  describe("the browser build in headless Chromium", () => {
    it.skip(`(skipped: ${skipReason})`, () => undefined);
  });
}
