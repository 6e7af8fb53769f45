// Imported first: it records every global and prototype as they are before the server code loads.
import { assertNoPoisoning } from "@fast-check/poisoning";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/test-server.js";
import { pollutingBody } from "./support/hostile-requests.js";

// Changed by the test machinery itself, not by request handling: vitest's worker state, the globals
// Node creates lazily on first use (fetch's dispatcher, AbortController, streams, ...).
const NOT_REQUEST_STATE =
  /^(__vitest_\w+__|Symbol\(undici\.globalDispatcher\.\d+\)|AbortController|AbortSignal|File|ReadableStream|TextEncoder|TextDecoder|Blob|FormData|Headers|Request|Response|WritableStream|TransformStream|DOMException|performance|crypto|navigator|structuredClone)$/;

const LONG = process.env.RELIABILITY_LONG === "1";
const CASES = LONG ? 5_000 : 500;
const SEED = process.env.RELIABILITY_SEED ? Number(process.env.RELIABILITY_SEED) : Math.floor(Math.random() * 2 ** 31);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});

const post = (body: string) => app.post(body);

/** What a polluted prototype would show: the payloads' property names inherited by fresh values. */
function inheritedByFreshObjects(): string[] {
  const probes: [string, object][] = [
    ["object", {}],
    ["array", []],
    ["function", () => undefined],
    ["error", new Error("probe")],
  ];
  return probes.flatMap(([kind, probe]) =>
    ["polluted", "isAdmin", "tag"].filter((name) => name in probe).map((name) => `${kind}.${name}`),
  );
}

describe("prototype pollution through request bodies, checked inside the server's process", () => {
  it("a NewPlant carrying __proto__ stores only its own fields: the __proto__ tag is neither stored nor echoed", async () => {
    const res = await post('{"id": 101, "name": "Fern", "__proto__": {"tag": "from-proto", "polluted": "yes"}}');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: "Fern" });
    expect(app.rows().find((row) => row.id === 101n)).toEqual({ id: 101n, name: "Fern", tag: null });
  });

  it("a NewPlant carrying constructor.prototype is accepted as a plant and pollutes nothing", async () => {
    const res = await post('{"id": 102, "name": "Ivy", "constructor": {"prototype": {"polluted": "yes", "tag": "x"}}}');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: "Ivy" });
    expect(inheritedByFreshObjects()).toEqual([]);
  });

  it(`after ${CASES} generated __proto__ / constructor.prototype bodies, no prototype or global has changed`, {
    timeout: 120_000,
  }, async () => {
    let nextId = 1_000n;
    const run = await fc.check(
      fc.asyncProperty(pollutingBody, async (bodyFor) => {
        const res = await post(bodyFor(nextId++));
        // Every such body is either a plant (200) or rejected as a client error; never a server failure.
        expect([200, 400]).toContain(res.status);
        expect(inheritedByFreshObjects()).toEqual([]);
      }),
      { numRuns: CASES, seed: SEED, endOnFailure: true },
    );
    if (run.failed) {
      throw new Error(
        `replay with RELIABILITY_SEED=${run.seed}: ${run.counterexample?.[0](0n).slice(0, 500)}\n${String(run.errorInstance).slice(0, 1000)}`,
      );
    }
    expect(inheritedByFreshObjects()).toEqual([]);
    // Every built-in the package recorded at import (Object.prototype, Array.prototype, JSON, ...) is intact.
    expect(() => assertNoPoisoning({ ignoredRootRegex: NOT_REQUEST_STATE })).not.toThrow();
    // The app still answers normally.
    expect((await post('{"id": 103, "name": "Oak"}')).status).toBe(200);
  });
});
