import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { type Browser, chromiumUnavailable, launchChromium } from "@plant-store/test-support/chromium";
import { type ListeningTestApp, startTestApp } from "./support/test-server.js";

const ARTIFACTS = fileURLToPath(new URL("../test-artifacts/", import.meta.url));
// In CI a missing browser is a failure (chromiumUnavailable throws); elsewhere the suite says why it skipped.
const skipReason = chromiumUnavailable();
if (skipReason !== undefined) console.warn(`skipping the /docs browser test: ${skipReason}`);

describe.skipIf(skipReason !== undefined)("GET /docs in headless Chromium", { timeout: 60_000 }, () => {
  let t: ListeningTestApp;
  let chromium: Browser;

  beforeAll(async () => {
    t = await startTestApp({ store: "memory", listen: true });
    chromium = await launchChromium();
  }, 60_000);

  it("renders the POST /plants operation from same-origin assets under the CSP, and keeps a screenshot", async () => {
    const page = await chromium.newPage({ viewport: { width: 1280, height: 900 } });
    const requested: string[] = [];
    const problems: string[] = [];
    page.on("request", (req) => requested.push(req.url()));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    page.on("response", (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
    });

    const res = await page.goto(`${t.url}/docs`);
    expect(res?.status()).toBe(200);
    const operation = page.locator(".opblock.opblock-post").filter({ hasText: "/plants" });
    await operation.waitFor({ state: "visible", timeout: 20_000 });
    await operation.locator(".opblock-summary").click();
    await page.getByText("The plant to create").waitFor({ state: "visible", timeout: 10_000 });
    expect(await page.locator(".info .title").textContent()).toContain("Plant Store");

    mkdirSync(ARTIFACTS, { recursive: true });
    const screenshot = join(ARTIFACTS, "docs.png");
    await page.screenshot({ path: screenshot, fullPage: true });
    expect(statSync(screenshot).size).toBeGreaterThan(10_000);

    // No CDN: everything the page loaded came from this server (or is inline data), and nothing was blocked.
    expect(requested.filter((url) => !url.startsWith(t.url) && !url.startsWith("data:"))).toEqual([]);
    expect(requested).toContain(`${t.url}/openapi.json`);
    expect(problems).toEqual([]);
    await page.close();
  });
});
