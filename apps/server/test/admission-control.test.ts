import { ErrorCode } from "@plant-store/contract";
import { describe, expect, it } from "vitest";
import { AdmissionControl } from "../src/connection/admission-control.js";
import type { QueueTimeSource } from "../src/connection/queue-time.js";
import { capturingLogger } from "./support/log-capture.js";
import { testApps } from "./support/test-server.js";

/**
 * Drives the controller as the server would: `intervals` of 100 ms with a request every 10 ms that waited `queueMs`
 * for the event loop and, when admitted, is answered `answeredMs` after it arrived.
 */
function drive(control: AdmissionControl, clock: { nowMs: number }, intervals: number, queueMs: number, answeredMs = queueMs) {
  const decisions: boolean[] = [];
  for (let step = 0; step < intervals * 10; step++) {
    clock.nowMs += 10;
    const admitted = control.admit({ ...clock, queueMs });
    if (admitted) control.answered(answeredMs);
    decisions.push(admitted);
  }
  return decisions;
}

const refused = (decisions: boolean[]) => decisions.filter((admitted) => !admitted).length;

/**
 * A server that answers one request each `serviceMs`, first come first served, offered `overload` times that rate
 * at even spacing for `seconds`, on the controller's clock. Each request is read at once (1 ms wait), so the only
 * signal is the time to answer, which grows with the queue of admitted requests. Returns the share refused over the
 * last half of the run.
 */
function overloaded(overload: number, seconds: number, serviceMs = 10): number {
  const control = new AdmissionControl();
  const spacingMs = serviceMs / overload;
  const queue: number[] = [];
  let freeAtMs = 0;
  let lateArrivals = 0;
  let lateRefused = 0;
  const arrivals = Math.floor((seconds * 1_000) / spacingMs);
  for (let i = 1; i <= arrivals; i++) {
    const nowMs = i * spacingMs;
    // Answer every request whose service ends before this arrival.
    while (queue.length > 0 && Math.max(freeAtMs, queue[0] ?? 0) + serviceMs <= nowMs) {
      const arrivedMs = queue.shift() ?? 0;
      freeAtMs = Math.max(freeAtMs, arrivedMs) + serviceMs;
      control.answered(freeAtMs - arrivedMs);
    }
    const admitted = control.admit({ nowMs, queueMs: 1 });
    if (admitted) queue.push(nowMs);
    if (i > arrivals / 2) {
      lateArrivals++;
      if (!admitted) lateRefused++;
    }
  }
  return lateRefused / lateArrivals;
}

describe("admission control", () => {
  it("lets its limit follow the waits the machine shows outside overload: longer waits raise it, shorter lower it", () => {
    const control = new AdmissionControl();
    const clock = { nowMs: 0 };
    drive(control, clock, 200, 90);
    const afterSlowTurns = control.limitMs;
    expect(afterSlowTurns).toBeGreaterThan(150);
    expect(control.refusalShare).toBe(0);
    drive(control, clock, 200, 3);
    expect(control.limitMs).toBeLessThan(afterSlowTurns / 2);
    expect(control.limitMs).toBeGreaterThanOrEqual(50);
  });

  it("refuses nothing while waits stay within the limit", () => {
    const control = new AdmissionControl();
    const clock = { nowMs: 0 };
    expect(refused(drive(control, clock, 50, 20))).toBe(0);
  });

  it("refuses a share that grows while the wait stays over the limit, and falls back to none once it is under", () => {
    const control = new AdmissionControl();
    const clock = { nowMs: 0 };
    drive(control, clock, 50, 20);
    const limit = control.limitMs;
    const first = refused(drive(control, clock, 2, limit * 3));
    const limitInOverload = control.limitMs;
    const later = refused(drive(control, clock, 2, limit * 3));
    expect(first).toBeGreaterThan(0);
    expect(later).toBeGreaterThan(first);
    expect(control.limitMs).toBe(limitInOverload);
    drive(control, clock, 30, limit / 4);
    expect(control.refusalShare).toBe(0);
    expect(refused(drive(control, clock, 2, limit / 4))).toBe(0);
  });

  it("refuses when answers slow down even though every request is read at once (the queue is in the store)", () => {
    const control = new AdmissionControl();
    const clock = { nowMs: 0 };
    drive(control, clock, 50, 1, 20);
    expect(refused(drive(control, clock, 5, 1, control.limitMs * 3))).toBeGreaterThan(0);
  });

  it("refuses the excess and no more: about a third at 1.5 times the service rate, about half at twice", () => {
    const atOneAndAHalf = overloaded(1.5, 60);
    expect(atOneAndAHalf).toBeGreaterThan(0.3);
    expect(atOneAndAHalf).toBeLessThan(0.4);
    const atTwice = overloaded(2, 60);
    expect(atTwice).toBeGreaterThan(0.47);
    expect(atTwice).toBeLessThan(0.56);
  });

  it("refuses less for a wait just over the limit than for one far over it", () => {
    const near = new AdmissionControl();
    const far = new AdmissionControl();
    const nearClock = { nowMs: 0 };
    const farClock = { nowMs: 0 };
    drive(near, nearClock, 50, 20);
    drive(far, farClock, 50, 20);
    expect(refused(drive(near, nearClock, 5, near.limitMs * 1.2))).toBeLessThan(refused(drive(far, farClock, 5, far.limitMs * 4)));
  });
});

/** A clock on which every request waited a second: far over the limit from the first interval on. */
function standingQueue(): QueueTimeSource {
  const clock = { nowMs: 0 };
  return {
    nowMs: () => clock.nowMs,
    sample() {
      clock.nowMs += 150;
      return { ...clock, queueMs: 1_000 };
    },
  };
}

const app = testApps();

describe("a server over capacity", () => {
  it("answers POST /plants with 503 Overloaded and Retry-After at once, before auth, and logs it", async () => {
    const { logger, lines } = capturingLogger();
    const t = await app({ listen: true, overrides: { queueTime: standingQueue(), logger } });
    // The first request opens the first interval; the second closes it, over the limit.
    await fetch(`${t.url}/plants`, { method: "POST" });
    const res = await fetch(`${t.url}/plants`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Request-Id": "overload-1" },
      body: '{"id": 1, "name": "Monstera"}',
    });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(res.headers.get("x-request-id")).toBe("overload-1");
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await res.json()).toEqual({ error: ErrorCode.Overloaded, message: "the server is over capacity; retry after Retry-After seconds" });
    expect(t.rows()).toEqual([]);
    expect(lines().filter((line) => line.msg === "requests shed")).toEqual([
      expect.objectContaining({ level: 40, shed: 1, queueMs: 1_000, res: { statusCode: 503 } }),
    ]);
    const metrics = await t.metrics.registry.getSingleMetricAsString("plant_store_requests_shed_total");
    expect(metrics).toMatch(/^plant_store_requests_shed_total 1$/m);
  });

  it("never sheds GET /healthz, /readyz or /metrics: readiness stays 200 through the overload", async () => {
    const t = await app({ listen: true, overrides: { queueTime: standingQueue() } });
    for (let round = 0; round < 3; round++) {
      expect((await fetch(`${t.url}/plants`, { method: "POST" })).status).toBe(round === 0 ? 401 : 503);
      expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${t.url}/readyz`)).status).toBe(200);
      expect((await fetch(`${t.url}/metrics`)).status).toBe(200);
    }
  });

  it("serves every request when ADMISSION_CONTROL=false", async () => {
    const t = await app({ listen: true, env: { ADMISSION_CONTROL: "false" }, overrides: { queueTime: standingQueue() } });
    for (let round = 0; round < 3; round++) {
      const res = await fetch(`${t.url}/plants`, {
        method: "POST",
        headers: { ...t.auth, "Content-Type": "application/json" },
        body: `{"id": ${round + 1}, "name": "Monstera"}`,
      });
      expect(res.status).toBe(200);
    }
  });
});
