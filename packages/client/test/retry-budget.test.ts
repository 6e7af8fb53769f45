import { afterEach, describe, expect, it, vi } from "vitest";
import { createPlantStoreClient, PlantStoreApiError, type PlantStoreClientOptions } from "../src/index.js";
import { createFakePlantStore } from "../src/testing/index.js";

afterEach(() => {
  vi.useRealTimers();
});

/** A client of a fresh fake whose requests are counted as they reach it. */
function clientOfFake(options: Partial<PlantStoreClientOptions> = {}) {
  const fake = createFakePlantStore();
  const sent = { requests: 0 };
  const client = createPlantStoreClient({
    baseUrl: "https://plants.test",
    token: "test",
    ...options,
    fetch: (input, init) => {
      sent.requests++;
      return fake.fetch(input, init);
    },
  });
  return { fake, client, sent };
}

describe("the retry budget", () => {
  it("retries at most `ratio` per call plus the floor while every call meets a 503, and returns the rest at once", async () => {
    // A floor of one retry per window: the first call's, then one more per ten calls. The throttle is off: this
    // is the budget alone (with it, most of these calls would not be sent; test/adaptive-throttle.test.ts).
    const budget = { ratio: 0.1, minPerSecond: 0.1, windowMs: 10_000 };
    const { fake, client, sent } = clientOfFake({ retries: 2, retryBudget: budget, throttle: false });
    fake.failNext(1000, { status: 503, retryAfterSeconds: 0 });
    const statuses: number[] = [];
    for (let id = 1; id <= 30; id++) statuses.push((await client.plants.create({ id, name: "Fern" })).status);
    expect(statuses.every((status) => status === 503)).toBe(true);
    // 1 (floor) + 0.1 x 30 calls = 4 retries, where retries: 2 alone would have sent 60.
    expect(sent.requests - 30).toBe(4);
  });

  it("past the budget a 503 is reported at once, typed as after the last retry: create resolves with it, createOrThrow rejects", async () => {
    vi.useFakeTimers();
    const { fake, client, sent } = clientOfFake({ retryBudget: { ratio: 0, minPerSecond: 0 } });
    // A Retry-After of 5 s the client would wait for (under maxRetryDelayMs) if the budget allowed a retry;
    // the fake clock never moves, so a waiting call would never settle.
    fake.failNext(2, { status: 503, code: "StoreUnavailable", retryAfterSeconds: 5 });
    expect(await client.plants.create({ id: 1, name: "Fern" })).toMatchObject({ status: 503, body: { error: 50301 } });
    const error = await client.plants.createOrThrow({ id: 1, name: "Fern" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlantStoreApiError);
    expect(error).toMatchObject({ status: 503, code: "StoreUnavailable" });
    expect(sent.requests).toBe(2);
  });

  it("past the budget a lost connection rejects at once with the fetch error", async () => {
    const { fake, client, sent } = clientOfFake({ retryBudget: { ratio: 0, minPerSecond: 0 } });
    fake.failNext(1, { disconnect: true });
    await expect(client.plants.create({ id: 1, name: "Fern" })).rejects.toThrow(TypeError);
    expect(sent.requests).toBe(1);
  });

  it("is one budget for all of a client's calls, and refills as its window passes", async () => {
    // Only the budget's clock is faked: the retries' zero-second waits stay real timers.
    vi.useFakeTimers({ toFake: ["performance"] });
    const { fake, client, sent } = clientOfFake({ retryBudget: { ratio: 0, minPerSecond: 0.5, windowMs: 2_000 } });
    // A floor of one retry per 2 s window: the first call's 503 is retried, the second call's is not.
    fake.failNext(1, { status: 503, retryAfterSeconds: 0 });
    expect((await client.plants.create({ id: 1, name: "Fern" })).status).toBe(200);
    fake.failNext(1, { status: 503, retryAfterSeconds: 0 });
    expect((await client.plants.create({ id: 2, name: "Palm" })).status).toBe(503);
    expect(sent.requests).toBe(3);
    vi.advanceTimersByTime(2_000);
    fake.failNext(1, { status: 503, retryAfterSeconds: 0 });
    expect((await client.plants.create({ id: 3, name: "Ivy" })).status).toBe(200);
    expect(sent.requests).toBe(5);
  });

  it("does not count the one retry after a token refresh", async () => {
    const fake = createFakePlantStore({ verifyToken: (token) => token === "fresh" });
    const client = createPlantStoreClient({
      baseUrl: "https://plants.test",
      getToken: ({ forceRefresh }) => (forceRefresh ? "fresh" : "stale"),
      fetch: fake.fetch,
      retryBudget: { ratio: 0, minPerSecond: 0 },
    });
    expect(await client.plants.createOrThrow({ id: 1, name: "Fern" })).toEqual({ name: "Fern" });
  });

  it.each([
    [{ ratio: -0.1 }, /retryBudget.ratio must be at least 0, got -0.1/],
    [{ minPerSecond: Number.NaN }, /retryBudget.minPerSecond must be at least 0, got NaN/],
    [{ windowMs: 500 }, /retryBudget.windowMs must be from 1000 to 60000, got 500/],
  ])("refuses %o with a RangeError naming the option", (retryBudget, message) => {
    expect(() => createPlantStoreClient({ baseUrl: "https://plants.test", token: "t", retryBudget })).toThrow(message);
  });
});
