import { ErrorCode } from "@plant-store/contract";
import { describe, expect, it } from "vitest";
import { AdmissionControl } from "../src/connection/admission-control.js";
import type { QueueTimeSource } from "../src/connection/queue-time.js";
import { capturingLogger } from "./support/log-capture.js";
import { testApps } from "./support/test-server.js";

/**
 * Drives the controller as the event loop would: `intervals` of 100 ms in which requests arrive every 10 ms,
 * having waited `queueMs`, with the loop idle for `idleShare` of the time.
 */
function drive(control: AdmissionControl, clock: { nowMs: number; idleMs: number }, intervals: number, queueMs: number, idleShare: number) {
  const decisions: boolean[] = [];
  for (let step = 0; step < intervals * 10; step++) {
    clock.nowMs += 10;
    clock.idleMs += 10 * idleShare;
    decisions.push(control.admit({ ...clock, queueMs }));
  }
  return decisions;
}

describe("admission control's limit", () => {
  it("follows the waits the machine shows outside overload: longer waits raise it, shorter ones lower it", () => {
    const control = new AdmissionControl();
    const clock = { nowMs: 0, idleMs: 0 };
    drive(control, clock, 200, 40, 0.5);
    const afterSlowTurns = control.limitMs;
    expect(afterSlowTurns).toBeGreaterThan(70);
    drive(control, clock, 200, 3, 0.5);
    expect(control.limitMs).toBeLessThan(afterSlowTurns / 4);
    expect(control.limitMs).toBeGreaterThanOrEqual(5);
  });

  it("refuses nothing without a standing queue, however long one request waited", () => {
    const control = new AdmissionControl();
    const clock = { nowMs: 0, idleMs: 0 };
    expect(drive(control, clock, 20, 2_000, 0.3).every(Boolean)).toBe(true);
    expect(control.overloaded).toBe(false);
  });

  it("once the loop stays busy a whole interval, refuses requests over the limit and serves those under it", () => {
    const control = new AdmissionControl();
    const clock = { nowMs: 0, idleMs: 0 };
    drive(control, clock, 20, 10, 0.5);
    drive(control, clock, 2, 100, 0);
    expect(control.overloaded).toBe(true);
    const limit = control.limitMs;
    expect(drive(control, clock, 1, limit * 3, 0).some(Boolean)).toBe(false);
    expect(drive(control, clock, 1, limit / 2, 0).every(Boolean)).toBe(true);
    expect(control.limitMs).toBe(limit);
  });

  it("ends overload once the loop is idle again, and then serves every request", () => {
    const control = new AdmissionControl();
    const clock = { nowMs: 0, idleMs: 0 };
    drive(control, clock, 2, 1_000, 0);
    expect(control.overloaded).toBe(true);
    drive(control, clock, 2, 1_000, 0.5);
    expect(control.overloaded).toBe(false);
    expect(drive(control, clock, 1, 1_000, 0.5).every(Boolean)).toBe(true);
  });
});

/** A loop that is never idle, where every request waited a second: a standing queue from the first interval on. */
function standingQueue(): QueueTimeSource {
  const clock = { nowMs: 0, idleMs: 0 };
  return {
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
    const t = await app({ overrides: { queueTime: standingQueue(), logger } });
    // The first request opens the first interval; from the second on the queue has stood an interval.
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
    const t = await app({ overrides: { queueTime: standingQueue() } });
    for (let round = 0; round < 3; round++) {
      expect((await fetch(`${t.url}/plants`, { method: "POST" })).status).toBe(round === 0 ? 401 : 503);
      expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${t.url}/readyz`)).status).toBe(200);
      expect((await fetch(`${t.url}/metrics`)).status).toBe(200);
    }
  });

  it("serves every request when ADMISSION_CONTROL=false", async () => {
    const t = await app({ env: { ADMISSION_CONTROL: "false" }, overrides: { queueTime: standingQueue() } });
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
