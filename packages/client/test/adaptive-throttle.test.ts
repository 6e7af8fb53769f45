import { describe, expect, it } from "vitest";
import {
  AdaptiveThrottle,
  type AdaptiveThrottleOptions,
  createPlantStoreClient,
  PlantStoreApiError,
  type PlantStoreClientOptions,
  PlantStoreThrottledError,
} from "../src/index.js";
import { createFakePlantStore } from "../src/testing/index.js";

const ORIGIN = "https://plants.test";

/** A clock the test moves by hand, in milliseconds. */
function manualClock(start = 0) {
  const clock = { ms: start, now: () => clock.ms };
  return clock;
}

/**
 * A client of a fresh fake, its requests and token fetches counted as they happen, with its throttle's clock,
 * random source and options given by the test, and no retries unless the test asks for them.
 */
function clientOfFake(
  throttle: AdaptiveThrottleOptions | AdaptiveThrottle | false,
  options: Partial<PlantStoreClientOptions> = {},
) {
  const fake = createFakePlantStore();
  const sent = { requests: 0, tokens: 0 };
  const client = createPlantStoreClient({
    baseUrl: ORIGIN,
    getToken: () => {
      sent.tokens++;
      return "test";
    },
    retries: 0,
    throttle,
    ...options,
    fetch: (input, init) => {
      sent.requests++;
      return fake.fetch(input, init);
    },
  });
  return { fake, client, sent };
}

/** Settles a call: its status, or the error it rejected with. */
const outcome = (call: Promise<{ status: number }>) =>
  call.then(
    (result) => result.status,
    (error: unknown) => error,
  );

describe("adaptive throttling (the SRE book's client-side throttling)", () => {
  it("while the server refuses every request, refuses calls locally with probability (requests - 2 x accepts) / (requests + 1), sending nothing for them", async () => {
    const shared = new AdaptiveThrottle({ minRequests: 0, now: manualClock().now, random: () => 0.5 });
    const { fake, client, sent } = clientOfFake(shared);
    fake.failNext(100, { status: 503, code: "Overloaded", retryAfterSeconds: 0 });

    const outcomes = [];
    for (let id = 1; id <= 10; id++) outcomes.push(await outcome(client.plants.create({ id, name: "Fern" })));

    // Calls 1 and 2 meet probabilities 0 and 1/2 (not above the random 0.5) and are sent; call n after them meets
    // (n - 1) / n, refused ones counted as requests, so every later call is refused without a request or a token.
    expect(outcomes.slice(0, 2)).toEqual([503, 503]);
    expect(sent).toEqual({ requests: 2, tokens: 2 });
    outcomes.slice(2).forEach((error, index) => {
      expect(error).toBeInstanceOf(PlantStoreThrottledError);
      expect(error).not.toBeInstanceOf(PlantStoreApiError);
      expect(error).toMatchObject({ origin: ORIGIN, refusalProbability: (index + 2) / (index + 3) });
    });
    expect(shared.stats(ORIGIN)).toEqual({ requests: 10, accepts: 0, refusalProbability: 10 / 11, refusedLocally: 8 });
  });

  it("counts every answer but a 429 or 503 as an accept, and weighs an accept as k requests", async () => {
    // random() = 0 refuses whenever the probability is above 0: nothing is refused while requests <= 2 x accepts.
    const shared = new AdaptiveThrottle({ minRequests: 0, now: manualClock().now, random: () => 0 });
    const { fake, client, sent } = clientOfFake(shared);
    const answers = [200, 503, 409, 429, 500, 503];
    for (const [index, status] of answers.entries()) {
      if (status === 503) fake.failNext(1, { status: 503, retryAfterSeconds: 0 });
      if (status === 429) fake.failNext(1, { status: 429, retryAfterSeconds: 0 });
      if (status === 500) fake.failNext(1, { status: 500 });
      // The 409: the plant of the first call, with another name.
      const plant = status === 409 ? { id: 1, name: "Other" } : { id: index + 1, name: "Fern" };
      expect(await outcome(client.plants.create(plant))).toBe(status);
    }
    expect(shared.stats(ORIGIN)).toMatchObject({ requests: 6, accepts: 3, refusalProbability: 0, refusedLocally: 0 });

    // One refusal more than half: the next call meets (7 - 6) / 8 and random() = 0 refuses it.
    fake.failNext(1, { status: 503, retryAfterSeconds: 0 });
    expect(await outcome(client.plants.create({ id: 7, name: "Fern" }))).toBe(503);
    expect(await outcome(client.plants.create({ id: 8, name: "Fern" }))).toMatchObject({ refusalProbability: 1 / 8 });
    expect(sent.requests).toBe(7);
  });

  it("counts a lost connection and a timeout as requests the server did not accept", async () => {
    const shared = new AdaptiveThrottle({ minRequests: 0, now: manualClock().now, random: () => 1 - Number.EPSILON });
    const { fake, client } = clientOfFake(shared);
    fake.failNext(1, { disconnect: true });
    await expect(client.plants.create({ id: 1, name: "Fern" })).rejects.toThrow(TypeError);
    fake.failNext(1, { delayMs: 1_000 });
    await expect(client.plants.create({ id: 2, name: "Fern" }, { timeoutMs: 1 })).rejects.toMatchObject({
      name: "PlantStoreTimeoutError",
    });
    expect(shared.stats(ORIGIN)).toMatchObject({ requests: 2, accepts: 0 });
  });

  it("forgets requests and accepts older than windowMs, one bucketMs at a time", async () => {
    const clock = manualClock();
    const shared = new AdaptiveThrottle({
      minRequests: 0,
      windowMs: 10_000,
      bucketMs: 1_000,
      now: clock.now,
      random: () => 0,
    });
    const { fake, client, sent } = clientOfFake(shared);
    fake.failNext(1, { status: 503, retryAfterSeconds: 0 });
    expect(await outcome(client.plants.create({ id: 1, name: "Fern" }))).toBe(503);
    clock.ms = 5_000;
    expect(await outcome(client.plants.create({ id: 2, name: "Fern" }))).toBeInstanceOf(PlantStoreThrottledError);

    // The first bucket (0-1 s) leaves the window at 10 s, the second request's (5-6 s) at 15 s.
    clock.ms = 9_999;
    expect(shared.stats(ORIGIN)).toMatchObject({ requests: 2, accepts: 0 });
    clock.ms = 10_000;
    expect(shared.stats(ORIGIN)).toMatchObject({ requests: 1, accepts: 0, refusalProbability: 1 / 2 });
    clock.ms = 15_000;
    expect(shared.stats(ORIGIN)).toMatchObject({ requests: 0, accepts: 0, refusalProbability: 0, refusedLocally: 1 });
    expect(await outcome(client.plants.create({ id: 3, name: "Fern" }))).toBe(200);
    expect(sent.requests).toBe(2);
  });

  it("counts a request once it has its outcome: concurrent first calls are all sent", async () => {
    const shared = new AdaptiveThrottle({ minRequests: 0, now: manualClock().now, random: () => 0 });
    const { client, sent } = clientOfFake(shared);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) => client.plants.create({ id: index + 1, name: "Fern" })),
    );
    expect(results.map((result) => result.status)).toEqual(new Array(20).fill(200));
    expect(sent.requests).toBe(20);
    expect(shared.stats(ORIGIN)).toMatchObject({ requests: 20, accepts: 20, refusalProbability: 0 });
  });

  it("refuses nothing while the window holds fewer than minRequests requests (default 10)", async () => {
    const shared = new AdaptiveThrottle({ now: manualClock().now, random: () => 0 });
    const { fake, client, sent } = clientOfFake(shared);
    fake.failNext(100, { status: 503, retryAfterSeconds: 0 });
    for (let id = 1; id <= 10; id++) expect(await outcome(client.plants.create({ id, name: "Fern" }))).toBe(503);
    expect(await outcome(client.plants.create({ id: 11, name: "Fern" }))).toMatchObject({
      refusalProbability: 10 / 11,
    });
    expect(sent.requests).toBe(10);
  });

  it("counts retries as requests; a retry it refuses ends the call with the server's answer, as a spent retry budget does", async () => {
    const shared = new AdaptiveThrottle({ minRequests: 0, now: manualClock().now, random: () => 0 });
    const { fake, client, sent } = clientOfFake(shared, { retries: 2 });
    fake.failNext(1, { status: 503, code: "Overloaded", retryAfterSeconds: 0 });
    // The retry meets (1 - 0) / 2 and is refused: the 503 is the result, typed as the server sent it.
    expect(await client.plants.create({ id: 1, name: "Fern" })).toMatchObject({ status: 503, body: { error: 50304 } });
    expect(sent.requests).toBe(1);
    expect(shared.stats(ORIGIN)).toMatchObject({ requests: 2, accepts: 0, refusedLocally: 1 });
  });

  it("composes with the retry budget: a retry the budget refuses never reaches the throttle", async () => {
    const shared = new AdaptiveThrottle({ minRequests: 0, now: manualClock().now, random: () => 0 });
    const { fake, client, sent } = clientOfFake(shared, { retries: 2, retryBudget: { ratio: 0, minPerSecond: 0 } });
    fake.failNext(1, { status: 503, retryAfterSeconds: 0 });
    expect((await client.plants.create({ id: 1, name: "Fern" })).status).toBe(503);
    expect(sent.requests).toBe(1);
    expect(shared.stats(ORIGIN)).toMatchObject({ requests: 1, refusedLocally: 0 });
  });

  it("a locally refused call rejects both methods with PlantStoreThrottledError, never a 503 result", async () => {
    const { fake, client } = clientOfFake({ minRequests: 0, random: () => 0 });
    fake.failNext(1, { status: 503, retryAfterSeconds: 0 });
    await client.plants.create({ id: 1, name: "Fern" });
    await expect(client.plants.create({ id: 2, name: "Fern" })).rejects.toBeInstanceOf(PlantStoreThrottledError);
    const error = await client.plants.createOrThrow({ id: 2, name: "Fern" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlantStoreThrottledError);
    expect(error).toMatchObject({
      name: "PlantStoreThrottledError",
      message: expect.stringMatching(/refused the call to https:\/\/plants\.test itself/),
    });
    expect("status" in (error as object)).toBe(false);
  });

  it("one AdaptiveThrottle shared by several clients keeps one history per origin", async () => {
    const shared = new AdaptiveThrottle({ minRequests: 0, now: manualClock().now, random: () => 0 });
    const first = clientOfFake(shared);
    const second = clientOfFake(shared);
    const elsewhere = clientOfFake(shared, { baseUrl: "https://other.test" });
    first.fake.failNext(1, { status: 503, retryAfterSeconds: 0 });
    expect(await outcome(first.client.plants.create({ id: 1, name: "Fern" }))).toBe(503);
    // The second client of the same origin meets the first one's refusal; a client of another origin does not.
    expect(await outcome(second.client.plants.create({ id: 1, name: "Fern" }))).toBeInstanceOf(
      PlantStoreThrottledError,
    );
    expect(await outcome(elsewhere.client.plants.create({ id: 1, name: "Fern" }))).toBe(200);
    expect(shared.stats(`${ORIGIN}/any/path`)).toMatchObject({ requests: 2, accepts: 0, refusedLocally: 1 });
    expect(shared.stats("https://other.test")).toMatchObject({ requests: 1, accepts: 1 });
    expect(shared.stats("https://unseen.test")).toEqual({
      requests: 0,
      accepts: 0,
      refusalProbability: 0,
      refusedLocally: 0,
    });
  });

  it("throttle: false sends every call", async () => {
    const { fake, client, sent } = clientOfFake(false);
    fake.failNext(50, { status: 503, retryAfterSeconds: 0 });
    for (let id = 1; id <= 50; id++) expect((await client.plants.create({ id, name: "Fern" })).status).toBe(503);
    expect(sent.requests).toBe(50);
  });

  it.each([
    [{ k: 0.5 }, /throttle.k must be at least 1, got 0.5/],
    [{ minRequests: -1 }, /throttle.minRequests must be at least 0, got -1/],
    [{ windowMs: 500 }, /throttle.windowMs must be from 1000 to 3600000, got 500/],
    [{ bucketMs: Number.NaN }, /throttle.bucketMs must be from 12 to 120000, got NaN/],
    [{ windowMs: 120_000, bucketMs: 10 }, /throttle.bucketMs must be from 12 to 120000, got 10/],
  ])("refuses %o with a RangeError naming the option", (throttle, message) => {
    expect(() => createPlantStoreClient({ baseUrl: ORIGIN, token: "t", throttle })).toThrow(message);
  });
});
