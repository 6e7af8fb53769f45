import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { tearDownWith } from "./teardown.js";

export type { Browser };

export const CHROMIUM_PATH = "/usr/bin/chromium";

/** Why the browser tests cannot run here, or undefined when they can. With CI=true a missing Chromium fails instead. */
export function chromiumUnavailable(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  if (process.env.CI === "true")
    throw new Error(`CI=true but ${CHROMIUM_PATH} is missing (.ci/run installs Debian's chromium)`);
  return `no Chromium at ${CHROMIUM_PATH} (install Debian's chromium to run them)`;
}

/**
 * Launches Debian's headless Chromium with the flags this machine's closed network needs (no background
 * connections); playwright gives it a throwaway profile and removes it on close, which the end of the test (or
 * file) does: callers never close it themselves. Shared by the server's /docs test and the consumer tests' browser suites.
 */
export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-quic",
      "--no-first-run",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  tearDownWith(() => browser.close());
  return browser;
}
