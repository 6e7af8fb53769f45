import { ErrorCode } from "@plant-store/contract";
import { describe, expect, it, vi } from "vitest";
import type { AdmissionClock } from "../src/connection/admission-clock.js";
import { MIN_LIMIT } from "../src/connection/concurrency-limit.js";
import { capturingLogger } from "./support/log-capture.js";
import { slowPost } from "./support/slow-request.js";
import { testApps } from "./support/test-server.js";

/** A clock the test sets; each CPU reading advances CPU time by `cpuPerRead` ms (0: time stands still). */
function testClock(cpuPerRead: number): AdmissionClock {
  let cpuMs = 0;
  return {
    wallMs: () => 0,
    cpuMs: () => (cpuMs += cpuPerRead),
  };
}

/** Every request has waited 200 ms of CPU by the time the dispatcher looks: twice what an empty queue allows. */
const everyRequestLate = () => testClock(200);

const app = testApps();
const plant = (id: number) => ({
  method: "POST",
  headers: { "Content-Type": "application/json" },
  body: `{"id": ${id}, "name": "Monstera"}`,
});

describe("a server over capacity", () => {
  it("answers a request that waited too long with the static 503 Overloaded and Retry-After, before auth, and logs it", async () => {
    const { logger, lines } = capturingLogger();
    const t = await app({ listen: true, overrides: { admissionClock: everyRequestLate(), logger } });
    const res = await fetch(`${t.url}/plants`, {
      ...plant(1),
      headers: { ...plant(1).headers, "X-Request-Id": "overload-1" },
    });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    // No request id, no work of any kind: the refusal is the same bytes every time.
    expect(res.headers.get("x-request-id")).toBeNull();
    expect(await res.json()).toEqual({
      error: ErrorCode.Overloaded,
      message: "the server is over capacity; retry after Retry-After seconds",
    });
    expect(t.rows()).toEqual([]);
    expect(lines().filter((line) => line.msg === "requests shed")).toEqual([
      expect.objectContaining({ level: 40, shed: 1, dropped: 0, res: { statusCode: 503 } }),
    ]);
    const metrics = await t.metrics.registry.getSingleMetricAsString("plant_store_requests_shed_total");
    expect(metrics).toMatch(/^plant_store_requests_shed_total 1$/m);
  });

  it("never queues GET /healthz, /readyz or /metrics: readiness stays 200 while every request is refused", async () => {
    const t = await app({ listen: true, overrides: { admissionClock: everyRequestLate() } });
    for (let round = 0; round < 3; round++) {
      expect((await fetch(`${t.url}/plants`, plant(round))).status).toBe(503);
      expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${t.url}/readyz`)).status).toBe(200);
      expect((await fetch(`${t.url}/metrics`)).status).toBe(200);
    }
  });

  it("serves every request when ADMISSION_CONTROL=false", async () => {
    const t = await app({
      listen: true,
      env: { ADMISSION_CONTROL: "false" },
      overrides: { admissionClock: everyRequestLate() },
    });
    for (let round = 0; round < 3; round++) {
      const res = await fetch(`${t.url}/plants`, {
        ...plant(round + 1),
        headers: { ...plant(round + 1).headers, ...t.auth },
      });
      expect(res.status).toBe(200);
    }
  });

  it("holds requests past the concurrency limit in the queue, and drops one whose client left before its turn", {
    timeout: 30_000,
  }, async () => {
    const { logger, lines } = capturingLogger();
    const t = await app({ listen: true, overrides: { admissionClock: testClock(0), logger } });
    const headers = { ...t.auth, "Content-Type": "application/json" };
    // The limit's worth of requests dispatched and unanswered: each waits for the rest of its body.
    const held = Array.from({ length: MIN_LIMIT }, (_, i) =>
      slowPost(`${t.url}/plants`, headers, `{"id": ${i + 1}, "name": "Held"}`),
    );
    await Promise.all(held.map((request) => request.inFlight));
    // One more is parsed (node:http sends its 100 Continue) and queued; its client leaves.
    const leaving = slowPost(`${t.url}/plants`, headers, `{"id": ${MIN_LIMIT + 1}, "name": "Gone"}`);
    await leaving.inFlight;
    leaving.abort();
    await expect(leaving.response).rejects.toThrow();
    // One answer frees a place: the dispatcher finds the queued client gone and drops its request unserved.
    held[0]!.finish();
    expect((await held[0]!.response).status).toBe(200);
    await vi.waitFor(() =>
      expect(lines().filter((line) => line.msg === "requests shed")).toEqual([
        expect.objectContaining({ shed: 0, dropped: 1 }),
      ]),
    );
    for (const request of held.slice(1)) request.finish();
    expect((await Promise.all(held.map((request) => request.response))).every((res) => res.status === 200)).toBe(true);
    expect(t.rows().map((row) => row.name)).not.toContain("Gone");
    expect(t.rows()).toHaveLength(MIN_LIMIT);
  });
});
