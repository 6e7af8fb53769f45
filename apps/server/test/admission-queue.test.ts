import { describe, expect, it } from "vitest";
import { AdmissionQueue, INTERVAL_MS, TARGET_MS } from "../src/connection/admission-queue.js";
import { ConcurrencyLimit, MAX_LIMIT, MIN_LIMIT } from "../src/connection/concurrency-limit.js";

/**
 * Expires, then takes everything, as one dispatcher turn would with no limit, at `cpuMs` of the event loop's CPU
 * time: what was refused and what served.
 */
function turn(queue: AdmissionQueue<number>, cpuMs: number, take = Number.POSITIVE_INFINITY) {
  const refused: number[] = [];
  const served: number[] = [];
  queue.expire(cpuMs, ({ item }) => refused.push(item));
  while (served.length < take && queue.length > 0) served.push(queue.take(cpuMs)!.item);
  return { refused, served };
}

describe("the admission queue (CoDel and adaptive LIFO, in the event loop's CPU time)", () => {
  it("serves first in, first out while no queue stands", () => {
    const queue = new AdmissionQueue<number>(0);
    for (const id of [1, 2, 3]) queue.push(id, 10, 10);
    expect(turn(queue, 20)).toEqual({ refused: [], served: [1, 2, 3] });
  });

  it("lets a request wait up to the interval while the queue keeps emptying: a burst drains, nothing is refused", () => {
    const queue = new AdmissionQueue<number>(0);
    queue.push(1, 0, 0);
    queue.push(2, 0, 0);
    expect(queue.waitLimitMs(INTERVAL_MS - 1)).toBe(INTERVAL_MS);
    expect(turn(queue, INTERVAL_MS - 1)).toEqual({ refused: [], served: [1, 2] });
    queue.push(3, 0, INTERVAL_MS);
    expect(turn(queue, 2 * INTERVAL_MS + 1)).toEqual({ refused: [3], served: [] });
  });

  it("once the queue has not been empty for the interval, serves the newest first and refuses what waited past the target", () => {
    const queue = new AdmissionQueue<number>(0);
    // Each turn takes 2 ms of CPU: 3 arrive and 2 are served, so the queue never empties.
    let id = 0;
    const log: { cpuMs: number; refused: number[]; served: number[] }[] = [];
    for (let cpuMs = 0; cpuMs <= 200; cpuMs += 2) {
      for (let i = 0; i < 3; i++) queue.push(++id, cpuMs * 5, cpuMs);
      log.push({ cpuMs, ...turn(queue, cpuMs, 2) });
    }
    const early = log.filter((t) => t.cpuMs < INTERVAL_MS);
    const late = log.filter((t) => t.cpuMs > INTERVAL_MS);
    expect(early.flatMap((t) => t.refused)).toEqual([]);
    expect(early.every((t) => t.served[0]! < t.served[1]!)).toBe(true);
    expect(queue.standing(200)).toBe(true);
    expect(queue.waitLimitMs(200)).toBe(TARGET_MS);
    // Standing: newest first, and every request older than the target (5 ms, three turns here) refused.
    for (const t of late)
      expect(t.served).toEqual([id - ((200 - t.cpuMs) / 2) * 3, id - ((200 - t.cpuMs) / 2) * 3 - 1]);
    expect(late.every((t) => t.refused.length > 0)).toBe(true);
    expect(queue.length).toBeLessThanOrEqual(3 * Math.ceil(TARGET_MS / 2) + 1);
  });

  it("goes back to first in, first out, with the interval's wait, once the queue has emptied", () => {
    const queue = new AdmissionQueue<number>(0);
    queue.push(1, 0, 0);
    queue.push(2, 0, 148);
    queue.push(3, 0, 149);
    expect(queue.standing(150)).toBe(true);
    expect(turn(queue, 150)).toEqual({ refused: [1], served: [3, 2] });
    queue.push(4, 0, 160);
    queue.push(5, 0, 160);
    const later = 160 + INTERVAL_MS - 1;
    expect(queue.standing(later)).toBe(false);
    expect(turn(queue, later)).toEqual({ refused: [], served: [4, 5] });
  });

  it("never counts wall time: a closed loop whose turns a busy host stretches to seconds refuses nothing", () => {
    const queue = new AdmissionQueue<number>(0);
    let id = 0;
    // A closed loop of 50: each turn serves all that arrived; the turns take 2 s of wall time but 4 ms of CPU.
    for (let step = 1; step <= 100; step++) {
      for (let i = 0; i < 50; i++) queue.push(++id, step * 2_000, step * 4);
      expect(turn(queue, step * 4 + 3)).toEqual({ refused: [], served: expect.any(Array) });
      expect(queue.length).toBe(0);
    }
  });

  it("does not count the time it holds requests while the event loop idles (they wait for the store, not behind work)", () => {
    const queue = new AdmissionQueue<number>(0);
    queue.push(1, 0, 0);
    queue.push(2, 10, 0);
    // Ten seconds of wall time later, with 1 ms of CPU spent: nothing waited behind work, nothing is refused.
    expect(turn(queue, 1)).toEqual({ refused: [], served: [1, 2] });
  });
});

/** `windows` windows of 100 ms, each with `answers` answers of `latencyMs` at `inFlight` in flight. */
function feed(
  limit: ConcurrencyLimit,
  clock: { nowMs: number },
  windows: number,
  latencyMs: number,
  inFlight: number,
  answers = 20,
) {
  for (let w = 0; w < windows; w++) {
    for (let a = 0; a < answers; a++) {
      clock.nowMs += 100 / answers;
      limit.sample(latencyMs, inFlight, clock.nowMs);
    }
  }
}

describe("the concurrency limit (a latency gradient against the lowest recent latency)", () => {
  it("starts at its floor and stays there while fewer than half of it are in flight (a closed loop of 50)", () => {
    const limit = new ConcurrencyLimit();
    const clock = { nowMs: 0 };
    expect(limit.limit).toBe(MIN_LIMIT);
    feed(limit, clock, 100, 20, 50);
    expect(limit.limit).toBe(MIN_LIMIT);
  });

  it("grows while latency holds with the limit in use, up to its ceiling", () => {
    const limit = new ConcurrencyLimit();
    const clock = { nowMs: 0 };
    feed(limit, clock, 20, 20, MIN_LIMIT);
    expect(limit.limit).toBeGreaterThan(MIN_LIMIT);
    feed(limit, clock, 3_000, 20, MAX_LIMIT);
    expect(limit.limit).toBe(MAX_LIMIT);
  });

  it("under overload, where latency grows with what is in flight, stays near its floor instead of drifting to its ceiling", () => {
    const limit = new ConcurrencyLimit();
    const clock = { nowMs: 0 };
    // A saturated server answering 2 requests per ms: whatever is dispatched waits inside it, limit / 2 ms.
    // 15 s, as long as a level of the bench's overload mode.
    for (let w = 0; w < 150; w++) feed(limit, clock, 1, limit.limit / 2, limit.limit);
    expect(limit.limit).toBeLessThanOrEqual(2 * MIN_LIMIT);
  });

  it("shrinks when latency rises past 1.5 times its recent lowest, never below the floor", () => {
    const limit = new ConcurrencyLimit();
    const clock = { nowMs: 0 };
    feed(limit, clock, 200, 20, MAX_LIMIT);
    const grown = limit.limit;
    feed(limit, clock, 5, 200, grown);
    expect(limit.limit).toBeLessThan(grown);
    feed(limit, clock, 200, 200, MAX_LIMIT);
    expect(limit.limit).toBeGreaterThanOrEqual(MIN_LIMIT);
  });
});
