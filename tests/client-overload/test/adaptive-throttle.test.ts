import {
  AdaptiveThrottle,
  createPlantStoreClient,
  PlantStoreApiError,
  PlantStoreThrottledError,
  PlantStoreTimeoutError,
} from "@plant-store/client";
import { describe, expect, it } from "vitest";
import { querySqliteFile } from "@plant-store/test-support/sqlite-file";
import { issueTokens, startCappedServer } from "../support/capped-server.js";

const SECRET = "adaptive-throttle-test-secret-of-32-chars";
// A fleet of clients with the throttle's default settings offers an open loop of calls, each with a 1 s timeout, to
// the built server (ADMISSION_CONTROL=true), warmed up, then held to a twentieth of a core: several times what it
// serves in time (here about 500 calls a second offered, 100 stored), so most requests time out or are refused and
// the clients start refusing calls themselves. It needs the server capped, as retry-budget.test.ts does, and
// skips, saying why, where it cannot be (capped-server.ts). The run ends once
// the fleet has refused enough calls locally and stored enough plants, or after 20 s; nothing asserts a rate or a time.
const CPU_CORES = 0.05;
// The kernel's smallest quota is 1 ms: a twentieth of a core needs a 20 ms period.
const CPU_PERIOD_US = 20_000;
const CLIENTS = 4;
const CALLS_PER_TICK = 10;
const TICK_MS = 10;
const TIMEOUT_MS = 1_000;
const RUN_MS = 20_000;
const ENOUGH = { refusedLocally: 200, stored: 50 };

type Outcome =
  | { kind: "stored" }
  | { kind: "refused by the server"; status: number }
  | { kind: "refused locally"; error: PlantStoreThrottledError }
  | { kind: "timed out" }
  | { kind: "network error"; error: TypeError };

/** One client of the fleet: its own default throttle (read through stats), and the requests it sent. */
interface FleetClient {
  throttle: AdaptiveThrottle;
  sent: number;
  create: (id: number) => Promise<Outcome>;
}

function fleetClient(baseUrl: string, token: string): FleetClient {
  const throttle = new AdaptiveThrottle();
  const client: FleetClient = { throttle, sent: 0, create: async () => ({ kind: "stored" }) };
  const plants = createPlantStoreClient({
    baseUrl,
    token,
    timeoutMs: TIMEOUT_MS,
    throttle,
    fetch: (input, init) => {
      client.sent++;
      return fetch(input, init);
    },
  }).plants;
  client.create = async (id) => {
    try {
      const result = await plants.create({ id, name: `Plant ${id}` });
      return result.status === 200 ? { kind: "stored" } : { kind: "refused by the server", status: result.status };
    } catch (error) {
      if (error instanceof PlantStoreThrottledError) return { kind: "refused locally", error };
      if (error instanceof PlantStoreTimeoutError) return { kind: "timed out" };
      if (error instanceof TypeError) return { kind: "network error", error };
      throw error;
    }
  };
  return client;
}

/** The open loop: `CALLS_PER_TICK` calls every `TICK_MS`, round the fleet, whatever came back, until `enough()`. */
async function runOpenLoop(fleet: FleetClient[], enough: (outcomes: Outcome[]) => boolean): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const calls: Promise<void>[] = [];
  let nextId = 1;
  const started = performance.now();
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      if (enough(outcomes) || performance.now() - started > RUN_MS) {
        clearInterval(timer);
        resolve();
        return;
      }
      for (let i = 0; i < CALLS_PER_TICK; i++) {
        const id = nextId++;
        calls.push(fleet[id % fleet.length]!.create(id).then((outcome) => void outcomes.push(outcome)));
      }
    }, TICK_MS);
  });
  // Every call settles within its timeout.
  await Promise.all(calls);
  return outcomes;
}

/** Warmed up uncapped (compiled code, prepared statements), with a client of its own, before the cap. */
async function warmUp(server: { baseUrl: string }, token: string): Promise<void> {
  const client = createPlantStoreClient({ baseUrl: server.baseUrl, token });
  for (let lane = 0; lane < 10; lane++)
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => client.plants.createOrThrow({ id: -(lane * 20 + i + 1), name: "Warm-up" })),
    );
}

const count = (outcomes: Outcome[], kind: Outcome["kind"]) =>
  outcomes.filter((outcome) => outcome.kind === kind).length;

describe("a client fleet with adaptive throttling against the built server over capacity", () => {
  it("refuses calls locally, typed and without a request, and still stores plants", { timeout: 90_000 }, async ({
    skip,
  }) => {
    const [warmUpToken, ...tokens] = await issueTokens(SECRET, [
      "warm-up",
      ...Array.from({ length: CLIENTS }, (_, index) => `client-${index}`),
    ]);
    const server = await startCappedServer(
      { JWT_SECRET: SECRET, ADMISSION_CONTROL: "true" },
      { cores: CPU_CORES, periodUs: CPU_PERIOD_US, warmUp: (started) => warmUp(started, warmUpToken!) },
    );
    // Uncapped, the server keeps up and refuses nothing: no client would have reason to hold back.
    if (!server.capped) skip(`needs the server under a CPU cap, and it runs uncapped: ${server.uncappedBecause}`);
    const fleet = tokens.map((token) => fleetClient(server.baseUrl, token));
    const outcomes = await runOpenLoop(
      fleet,
      (done) => count(done, "refused locally") >= ENOUGH.refusedLocally && count(done, "stored") >= ENOUGH.stored,
    );
    const tally = Object.fromEntries(
      (["stored", "refused by the server", "refused locally", "timed out", "network error"] as const).map((kind) => [
        kind,
        count(outcomes, kind),
      ]),
    );

    // The fleet held calls back, each refusal typed: not an answer of the server, with the origin and the
    // probability it met (above 0: the server had refused most requests; below 1: the formula never reaches it).
    expect(
      tally["refused locally"],
      `outcomes: ${JSON.stringify(tally)}; CPU cap: ${server.capped ? CPU_CORES : "none"}`,
    ).toBeGreaterThan(0);
    for (const outcome of outcomes) {
      if (outcome.kind !== "refused locally") continue;
      expect(outcome.error).not.toBeInstanceOf(PlantStoreApiError);
      expect(outcome.error.origin).toBe(new URL(server.baseUrl).origin);
      expect(outcome.error.refusalProbability).toBeGreaterThan(0);
      expect(outcome.error.refusalProbability).toBeLessThan(1);
    }
    // A local refusal sent nothing: every request a throttle counted (the run is shorter than its 2-minute
    // window) was either sent through the client's fetch or refused locally.
    for (const client of fleet) {
      const stats = client.throttle.stats(server.baseUrl);
      expect(stats.requests).toBe(client.sent + stats.refusedLocally);
    }
    // Goodput: the server still stored plants, at least those the fleet was answered 200 for.
    expect(tally.stored, `outcomes: ${JSON.stringify(tally)}`).toBeGreaterThan(0);
    const stored = querySqliteFile(
      server.databaseFile,
      (db) => db.prepare("SELECT count(*) AS n FROM plants WHERE id > 0").get()?.n,
    );
    expect(stored).toBeGreaterThanOrEqual(BigInt(tally.stored!));
    // The server's refusals are 503s (overloaded, or the store not answering in time).
    for (const outcome of outcomes) if (outcome.kind === "refused by the server") expect(outcome.status).toBe(503);
  });
});
