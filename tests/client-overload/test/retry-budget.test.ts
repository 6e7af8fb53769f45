import {
  type CreatePlantResult,
  createPlantStoreClient,
  ErrorCode,
  type RetryBudgetOptions,
} from "@plant-store/client";
import { describe, expect, it } from "vitest";
import { querySqliteFile } from "@plant-store/test-support/sqlite-file";
import { issueTokens, startCappedServer } from "../support/capped-server.js";

const SECRET = "retry-budget-test-secret-of-32-characters";
// A fleet of clients, each with its own budget, keeps 500 calls in flight against the built server held to a tenth
// of a core, far more than it serves in time (skipped, saying why, where the server cannot be capped).
// The fleet goes on until the server has shed twice what the budgets allow retrying, or for 30 s at most. A window
// longer than that makes each budget one bound over the whole run: floor + ratio x the client's calls.
// Real time: the server's Retry-After (1 s) is waited out. 500 calls in flight queue for longer than the 50 ms the
// server here lets a request wait (QUEUE_TIMEOUT_MS), so admission control refuses what waited past it: the budget's
// ratio, 0.1%, is under what it refuses.
const CPU_CORES = 0.1;
const CLIENTS = 10;
const IN_FLIGHT_PER_CLIENT = 50;
const RUN_MS = 30_000;
const BUDGET = { ratio: 0.001, minPerSecond: 1 / 60, windowMs: 60_000 } satisfies RetryBudgetOptions;
const FLOOR = (BUDGET.minPerSecond * BUDGET.windowMs) / 1000;

/** What one client of the fleet did. */
interface ClientRun {
  results: CreatePlantResult[];
  /** Requests it sent: its calls plus its retries. */
  requests: number;
  /** 503s it was answered, retried or not. */
  shed: number;
}

/** Retries the fleet's budgets allow for these runs. */
const allowedRetries = (runs: ClientRun[]) =>
  runs.reduce((sum, run) => sum + FLOOR + BUDGET.ratio * run.results.length, 0);

/** The fleet: each client's calls in `IN_FLIGHT_PER_CLIENT` lanes, each request counted, until `done()`. */
async function runFleet(baseUrl: string, tokens: string[]): Promise<ClientRun[]> {
  const runs: ClientRun[] = Array.from({ length: CLIENTS }, () => ({ results: [], requests: 0, shed: 0 }));
  const deadline = performance.now() + RUN_MS;
  const done = () =>
    runs.reduce((sum, run) => sum + run.shed, 0) > 2 * allowedRetries(runs) || performance.now() > deadline;
  let nextId = 1;
  const client = (run: ClientRun, index: number) => {
    const plants = createPlantStoreClient({
      baseUrl,
      token: tokens[index]!,
      retries: 2,
      retryBudget: BUDGET,
      // The budget alone: the throttle would turn some calls into local refusals (adaptive-throttle.test.ts).
      throttle: false,
      fetch: async (input, init) => {
        run.requests++;
        const response = await fetch(input, init);
        if (response.status === 503) run.shed++;
        return response;
      },
    }).plants;
    const lane = async () => {
      while (!done()) {
        const id = nextId++;
        run.results.push(await plants.create({ id, name: `Plant ${id}` }));
      }
    };
    return Promise.all(Array.from({ length: IN_FLIGHT_PER_CLIENT }, lane));
  };
  await Promise.all(runs.map(client));
  return runs;
}

describe("a client fleet against the built server under overload", () => {
  it("retries within each client's budget; past it the 503 Overloaded is the call's typed result", {
    timeout: 90_000,
  }, async ({ skip }) => {
    const tokens = await issueTokens(
      SECRET,
      Array.from({ length: CLIENTS }, (_, index) => `client-${index}`),
    );
    const server = await startCappedServer(
      { JWT_SECRET: SECRET, ADMISSION_CONTROL: "true", QUEUE_TIMEOUT_MS: "50" },
      { cores: CPU_CORES },
    );
    // Uncapped, the server keeps up and sheds nothing: there would be no budget to test.
    if (!server.capped) skip(`needs the server under a CPU cap, and it runs uncapped: ${server.uncappedBecause}`);
    const runs = await runFleet(server.baseUrl, tokens);
    const results = runs.flatMap((run) => run.results);
    const requests = runs.reduce((sum, run) => sum + run.requests, 0);
    const shed = runs.reduce((sum, run) => sum + run.shed, 0);
    const retries = requests - results.length;
    const allowed = allowedRetries(runs);

    // The server shed more requests than the budgets allow retrying (`retries: 2` alone would retry each).
    expect(
      shed,
      `the server shed ${shed} of ${requests} requests: too few to test a budget of ${allowed} retries`,
    ).toBeGreaterThan(allowed);
    // Each client's retries stayed within its own budget, and so the fleet's did...
    for (const run of runs)
      expect(run.requests - run.results.length).toBeLessThanOrEqual(FLOOR + BUDGET.ratio * run.results.length);
    expect(retries).toBeLessThanOrEqual(allowed);
    // ...and every 503 not retried was its call's result, typed: 503 Overloaded; every other call stored its plant.
    const refused = results.filter((result) => result.status === 503);
    expect(refused.length).toBe(shed - retries);
    for (const result of refused) expect(result.body).toMatchObject({ error: ErrorCode.Overloaded });
    expect(results.filter((result) => result.status !== 200 && result.status !== 503)).toEqual([]);
    const stored = querySqliteFile(
      server.databaseFile,
      (db) => db.prepare("SELECT count(*) AS n FROM plants").get()?.n,
    );
    expect(stored).toBe(BigInt(results.length - refused.length));
  });
});
