import { fileURLToPath } from "node:url";
import { ErrorCode } from "@plant-store/contract";

/** fixtures/browser-fake-scenario.ts: the consumer code that drives the fake (its fetch, or msw's handlers). */
export const FETCH_FAKE_SCENARIO = fileURLToPath(new URL("../fixtures/browser-fake-scenario.ts", import.meta.url));

/** What `runBrowserScenario` reports wherever it runs (a browser page, Deno, Bun, workerd). */
export const expectedFetchFakeScenario = {
  created: { status: 200, body: { name: "Monstera", tag: "tropical" } },
  replayed: { status: 200, body: { name: "Monstera", tag: "tropical" } },
  conflict: { status: 409, error: ErrorCode.PlantIdConflict },
  // Two 503s with Retry-After: 0, then the create: three attempts.
  retried: { status: 200, attempts: 3 },
  afterLostConnection: { status: 200, attempts: 2 },
  plants: [
    { id: "1", name: "Seeded" },
    { id: "9007199254740993", name: "Monstera", tag: "tropical" },
    { id: "2", name: "Fern" },
    { id: "3", name: "Palm" },
  ],
};
