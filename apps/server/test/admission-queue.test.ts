import { describe, expect, it } from "vitest";
import { AdmissionQueue, INTERVAL_MS, MAX_WALL_WAIT_MS, TARGET_MS } from "../src/connection/admission-queue.js";
import { ConcurrencyLimit, MAX_LIMIT, MIN_LIMIT } from "../src/connection/concurrency-limit.js";

/** Expires, then takes everything, as one dispatcher turn would with no limit: what was refused and what served. */
function turn(queue: AdmissionQueue<number>, wallMs: number, cpuMs: number, take = Number.POSITIVE_INFINITY) {
  const refused: number[] = [];
  const served: number[] = [];
  queue.expire(wallMs, cpuMs, ({ item }) => refused.push(item));
  while (served.length < take && queue.length > 0) served.push(queue.take(wallMs)!.item);
  return { refused, served };
}

describe("the admission queue (CoDel and adaptive LIFO)", () => {
  it("serves first in, first out while no queue stands", () => {
    const queue = new AdmissionQueue<number>(0);
    for (const id of [1, 2, 3]) queue.push(id, 10, 10);
    expect(turn(queue, 20, 20)).toEqual({ refused: [], served: [1, 2, 3] });
  });

  it("lets a request wait up to the interval's CPU time while the queue keeps emptying: a burst drains, nothing is refused", () => {
    const queue = new AdmissionQueue<number>(0);
    queue.push(1, 0, 0);
    queue.push(2, 0, 0);
    expect(queue.waitLimitMs(50)).toBe(INTERVAL_MS);
    expect(turn(queue, 50, INTERVAL_MS - 1)).toEqual({ refused: [], served: [1, 2] });
    queue.push(3, 60, 0);
    expect(turn(queue, 70, INTERVAL_MS + 1)).toEqual({ refused: [3], served: [] });
  });

  it("once the queue has not been empty for the interval, serves the newest first and refuses what waited past the target", () => {
    const queue = new AdmissionQueue<number>(0);
    // Each 10 ms turn, 3 arrive and 2 are served: the queue never empties.
    let id = 0;
    let cpuMs = 0;
    const log: { wallMs: number; refused: number[]; served: number[] }[] = [];
    for (let wallMs = 0; wallMs <= 200; wallMs += 10) {
      for (let i = 0; i < 3; i++) queue.push(++id, wallMs, cpuMs);
      cpuMs += 2;
      log.push({ wallMs, ...turn(queue, wallMs, cpuMs, 2) });
    }
    const early = log.filter((t) => t.wallMs < INTERVAL_MS);
    const late = log.filter((t) => t.wallMs > INTERVAL_MS);
    expect(early.flatMap((t) => t.refused)).toEqual([]);
    expect(early.every((t) => t.served[0]! < t.served[1]!)).toBe(true);
    expect(queue.standing(200)).toBe(true);
    expect(queue.waitLimitMs(200)).toBe(TARGET_MS);
    // Standing: newest first, and every request older than the target (5 ms of CPU, three turns here) refused.
    for (const t of late)
      expect(t.served).toEqual([id - ((200 - t.wallMs) / 10) * 3, id - ((200 - t.wallMs) / 10) * 3 - 1]);
    expect(late.every((t) => t.refused.length > 0)).toBe(true);
    expect(queue.length).toBeLessThanOrEqual(3 * Math.ceil(TARGET_MS / 2) + 1);
  });

  it("goes back to first in, first out, with the interval's wait, once the queue has emptied", () => {
    const queue = new AdmissionQueue<number>(0);
    queue.push(1, 0, 0);
    queue.push(2, 150, 0);
    expect(queue.standing(150)).toBe(true);
    expect(turn(queue, 150, 1)).toEqual({ refused: [], served: [2, 1] });
    queue.push(3, 160, 1);
    queue.push(4, 160, 1);
    expect(queue.standing(170)).toBe(false);
    expect(turn(queue, 170, 50)).toEqual({ refused: [], served: [3, 4] });
  });

  it("measures waits in CPU time: a turn stretched by a busy host or a CPU quota refuses nothing", () => {
    const queue = new AdmissionQueue<number>(0);
    let id = 0;
    // A closed loop of 50: each turn serves all that waited; the turns take 300 ms of wall time but 4 ms of CPU.
    for (let step = 1; step <= 100; step++) {
      for (let i = 0; i < 50; i++) queue.push(++id, step * 300, step * 4);
      expect(turn(queue, step * 300 + 299, step * 4 + 3).refused).toEqual([]);
    }
  });

  it("refuses what waited past a second of wall time whatever its CPU wait (the queue is behind the store)", () => {
    const queue = new AdmissionQueue<number>(0);
    queue.push(1, 0, 0);
    queue.push(2, 10, 0);
    expect(turn(queue, MAX_WALL_WAIT_MS + 5, 0)).toEqual({ refused: [1], served: [2] });
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

describe("the concurrency limit (Gradient2)", () => {
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

  it("shrinks when latency rises past 1.5 times its long-term mean, never below the floor", () => {
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
