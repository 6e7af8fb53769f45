import { describe, expect, it } from "vitest";
import { AdmissionQueue } from "../src/connection/admission-queue.js";
import { statedDeadline } from "../src/connection/request-deadline.js";
import { ServicePace } from "../src/connection/service-pace.js";

const TIMEOUT_MS = 1_000;

/** Expires, then takes up to `take` requests, as one dispatcher turn would at `nowMs`: what was refused and served. */
function turn(queue: AdmissionQueue<number>, nowMs: number, take = Number.POSITIVE_INFINITY) {
  const refused: number[] = [];
  const served: number[] = [];
  queue.expire(nowMs, ({ item }) => refused.push(item));
  while (served.length < take && queue.length > 0) served.push(queue.take(nowMs)!.item);
  return { refused, served };
}

describe("the admission queue (deadlines and adaptive LIFO, in wall-clock time)", () => {
  it("serves first in, first out while every request has used less than half of its allowance", () => {
    const queue = new AdmissionQueue<number>();
    for (const id of [1, 2, 3]) queue.push(id, 0, TIMEOUT_MS);
    expect(queue.standing(TIMEOUT_MS / 2)).toBe(false);
    expect(turn(queue, TIMEOUT_MS / 2)).toEqual({ refused: [], served: [1, 2, 3] });
  });

  it("never refuses a closed loop whose wait stays under the timeout, however many connections it has", () => {
    const queue = new AdmissionQueue<number>();
    // 4,096 connections, 100 served a turn of 10 ms: each request waits 400 ms of a 1 s timeout, and is sent again.
    let nowMs = 0;
    for (let id = 0; id < 4_096; id++) queue.push(id, nowMs, nowMs + TIMEOUT_MS);
    let refused = 0;
    let served = 0;
    let order = true;
    for (let step = 0; step < 1_000; step++) {
      nowMs += 10;
      const t = turn(queue, nowMs, 100);
      refused += t.refused.length;
      served += t.served.length;
      order &&= t.served.every((id, i) => i === 0 || id > t.served[i - 1]!);
      for (const id of t.served) queue.push(id + 4_096, nowMs, nowMs + TIMEOUT_MS);
    }
    expect({ refused, served, order, queued: queue.length }).toEqual({
      refused: 0,
      served: 100_000,
      order: true,
      queued: 4_096,
    });
  });

  it("serves the newest first once the oldest has used half its allowance, and refuses each at its deadline", () => {
    const queue = new AdmissionQueue<number>();
    // An open loop at twice capacity: 20 arrive and 10 are served every 10 ms.
    let id = 0;
    let nowMs = 0;
    const waits: number[] = [];
    const arrived = new Map<number, number>();
    let refused = 0;
    for (; nowMs <= 5_000; nowMs += 10) {
      for (let i = 0; i < 20; i++) {
        arrived.set(++id, nowMs);
        queue.push(id, nowMs, nowMs + TIMEOUT_MS);
      }
      const t = turn(queue, nowMs, 10);
      for (const served of t.served) waits.push(nowMs - arrived.get(served)!);
      for (const late of t.refused) expect(nowMs - arrived.get(late)!).toBeGreaterThanOrEqual(TIMEOUT_MS);
      refused += t.refused.length;
    }
    expect(queue.standing(nowMs)).toBe(true);
    // Nobody served waited past the timeout; once the queue stands, most are served in the turn they arrive.
    expect(Math.max(...waits)).toBeLessThan(TIMEOUT_MS);
    expect(waits.slice(-100).every((wait) => wait === 0)).toBe(true);
    expect(refused).toBeGreaterThan(0);
    // The queue holds at most a timeout's worth of arrivals.
    expect(queue.length).toBeLessThanOrEqual((TIMEOUT_MS / 10 + 1) * 20);
  });

  it("goes back to first in, first out once the queue empties", () => {
    const queue = new AdmissionQueue<number>();
    queue.push(1, 0, TIMEOUT_MS);
    queue.push(2, 600, 600 + TIMEOUT_MS);
    expect(turn(queue, 600, 1)).toEqual({ refused: [], served: [2] });
    expect(turn(queue, 700)).toEqual({ refused: [], served: [1] });
    queue.push(3, 800, 800 + TIMEOUT_MS);
    queue.push(4, 800, 800 + TIMEOUT_MS);
    expect(turn(queue, 800)).toEqual({ refused: [], served: [3, 4] });
  });

  it("refuses a request with a deadline of its own when that passes, ahead of older requests with the timeout", () => {
    const queue = new AdmissionQueue<number>();
    queue.push(1, 0, TIMEOUT_MS);
    queue.push(2, 10, 110, true);
    queue.push(3, 20, 20 + TIMEOUT_MS);
    queue.push(4, 30, 80, true);
    expect(turn(queue, 40)).toEqual({ refused: [], served: [1, 2, 3, 4] });
    for (const [id, at, deadline] of [
      [1, 0, TIMEOUT_MS],
      [2, 10, 110],
      [3, 20, 20 + TIMEOUT_MS],
      [4, 30, 80],
    ] as const)
      queue.push(id, at, deadline, deadline !== at + TIMEOUT_MS);
    expect(turn(queue, 80, 0)).toEqual({ refused: [4], served: [] });
    expect(turn(queue, 110, 0)).toEqual({ refused: [2], served: [] });
    expect(turn(queue, 120)).toEqual({ refused: [], served: [1, 3] });
    expect(queue.length).toBe(0);
  });

  it("a request taken before its deadline is not refused when the deadline passes", () => {
    const queue = new AdmissionQueue<number>();
    queue.push(1, 0, 50, true);
    expect(turn(queue, 10)).toEqual({ refused: [], served: [1] });
    expect(turn(queue, 60)).toEqual({ refused: [], served: [] });
  });
});

describe("the deadline headers", () => {
  it("reads Envoy's and the client's header, and takes the shorter", () => {
    expect(statedDeadline({})).toEqual({ timeLeftMs: undefined });
    expect(statedDeadline({ "x-envoy-expected-rq-timeout-ms": "15000" })).toEqual({ timeLeftMs: 15_000 });
    expect(statedDeadline({ "x-request-timeout-ms": "250" })).toEqual({ timeLeftMs: 250 });
    expect(
      statedDeadline({ "x-envoy-expected-rq-timeout-ms": "15000", "x-request-timeout-ms": "250" }).timeLeftMs,
    ).toBe(250);
  });

  it("ignores a value that is not a whole number of milliseconds from 1 to 999999999, and names it", () => {
    for (const value of ["", "0", "-5", "+5", "1.5", "5ms", " 5", "1e3", "0x10", "1000000000", "5, 6", "٥"])
      expect(statedDeadline({ "x-request-timeout-ms": value })).toEqual({
        timeLeftMs: undefined,
        invalid: { header: "x-request-timeout-ms", value },
      });
    // A valid header still counts beside an invalid one.
    expect(statedDeadline({ "x-envoy-expected-rq-timeout-ms": "abc", "x-request-timeout-ms": "40" })).toEqual({
      timeLeftMs: 40,
      invalid: { header: "x-envoy-expected-rq-timeout-ms", value: "abc" },
    });
  });
});

describe("the service pace", () => {
  it("knows nothing until a busy window has passed, and ignores windows that emptied the queue", () => {
    const pace = new ServicePace();
    expect(pace.waitMs(1_000)).toBe(0);
    pace.dispatched(100, 0, false);
    pace.dispatched(100, 100, false);
    expect(pace.waitMs(1_000)).toBe(0);
    pace.dispatched(100, 200, true);
    pace.dispatched(100, 250, true);
    // 200 in 50 ms: 4 a millisecond, so 1,000 queued wait 250 ms.
    expect(pace.waitMs(1_000)).toBe(250);
  });

  it("takes the longest time from dispatch to answer of the last half second to second, and forgets it after", () => {
    const pace = new ServicePace();
    expect(pace.serviceMs(0)).toBe(0);
    pace.answered(20, 0);
    pace.answered(300, 100);
    for (let at = 200; at < 900; at += 10) pace.answered(10, at);
    expect(pace.serviceMs(900)).toBe(300);
    // 300 ms was in the window that ended at 500: remembered through the next one, gone after it.
    expect(pace.serviceMs(1_000)).toBe(10);
    expect(pace.serviceMs(2_100)).toBe(0);
  });

  it("counts the event loop's turns only while requests were left waiting: what a caller may have waited unseen", () => {
    const pace = new ServicePace();
    pace.turnStarted(0, false);
    pace.turnStarted(400, false);
    expect(pace.unseenMs(400)).toBe(0);
    pace.turnStarted(430, true);
    pace.turnStarted(450, true);
    expect(pace.unseenMs(450)).toBe(30);
    expect(pace.unseenMs(2_000)).toBe(0);
  });
});
