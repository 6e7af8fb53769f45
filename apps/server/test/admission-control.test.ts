import { ErrorCode } from "@plant-store/contract";
import { describe, expect, it, vi } from "vitest";
import type { AdmissionClock } from "../src/connection/admission-clock.js";
import { capturingLogger } from "./support/log-capture.js";
import { slowPost } from "./support/slow-request.js";
import { testApps } from "./support/test-server.js";

/**
 * A clock the test steers: wall time is the process's plus `wallAheadMs`, and each CPU reading advances CPU time by
 * `cpuPerRead` ms, so the dispatcher's per-turn budget is spent at once (1,000: nothing is dispatched) or never (0).
 */
function testClock(settings: { wallAheadMs?: number; cpuPerRead?: number } = {}) {
  let cpuMs = 0;
  const clock: AdmissionClock & { settings: typeof settings } = {
    settings,
    wallMs: () => performance.now() + (settings.wallAheadMs ?? 0),
    cpuMs: () => (cpuMs += settings.cpuPerRead ?? 0),
  };
  return clock;
}

/** Every request has waited a minute by the time the dispatcher looks: past any deadline. */
const everyRequestLate = () => {
  let reads = 0;
  return { wallMs: () => 60_000 * reads++, cpuMs: () => 0 } satisfies AdmissionClock;
};

const app = testApps();
const plant = (id: number, headers: Record<string, string> = {}) => ({
  method: "POST",
  headers: { "Content-Type": "application/json", ...headers },
  body: `{"id": ${id}, "name": "Monstera"}`,
});
const OVERLOADED = {
  error: ErrorCode.Overloaded,
  message: "the server is over capacity; retry after Retry-After seconds",
};

describe("a server that cannot answer a request before its deadline", () => {
  it("answers a request that waited past QUEUE_TIMEOUT_MS with the static 503 Overloaded and Retry-After, before auth, and logs it", async () => {
    const { logger, lines } = capturingLogger();
    const t = await app({ listen: true, overrides: { admissionClock: everyRequestLate(), logger } });
    const res = await fetch(`${t.url}/plants`, plant(1, { "X-Request-Id": "overload-1" }));
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    // No request id, no work of any kind: the refusal is the same bytes every time.
    expect(res.headers.get("x-request-id")).toBeNull();
    expect(await res.json()).toEqual(OVERLOADED);
    expect(t.rows()).toEqual([]);
    expect(lines().filter((line) => line.msg === "requests shed")).toEqual([
      expect.objectContaining({ level: 40, shed: 1, dropped: 0, queued: 0, res: { statusCode: 503 } }),
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
      const res = await fetch(`${t.url}/plants`, plant(round + 1, t.auth));
      expect(res.status).toBe(200);
    }
  });

  it("refuses, never starts, a request whose stated deadline has passed while it waited; serves one with time left", async () => {
    const clock = testClock({ cpuPerRead: 1_000 });
    const t = await app({ listen: true, overrides: { admissionClock: clock } });
    const headers = { ...t.auth, "Content-Type": "application/json" };
    // Held in the queue (no dispatch budget) while its 500 ms pass; its twin states 60 s.
    const late = slowPost(
      `${t.url}/plants`,
      { ...headers, "X-Envoy-Expected-Rq-Timeout-Ms": "500" },
      '{"id": 1, "name": "Late"}',
    );
    const early = slowPost(
      `${t.url}/plants`,
      { ...headers, "X-Request-Timeout-Ms": "60000" },
      '{"id": 2, "name": "Early"}',
    );
    await Promise.all([late.inFlight, early.inFlight]);
    clock.settings.wallAheadMs = 1_000;
    clock.settings.cpuPerRead = 0;
    late.finish();
    early.finish();
    const [refused, served] = await Promise.all([late.response, early.response]);
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body)).toEqual(OVERLOADED);
    expect(served.status).toBe(200);
    expect(t.rows().map((row) => row.name)).toEqual(["Early"]);
  });

  it("ignores a deadline header it cannot read, logging it once per header, and serves the request", async () => {
    const { logger, lines } = capturingLogger();
    const t = await app({ listen: true, overrides: { admissionClock: testClock(), logger } });
    for (const id of [1, 2]) {
      const res = await fetch(`${t.url}/plants`, plant(id, { ...t.auth, "X-Request-Timeout-Ms": "2s" }));
      expect(res.status).toBe(200);
    }
    expect(lines().filter((line) => String(line.msg).startsWith("deadline header ignored"))).toEqual([
      expect.objectContaining({ level: 40, header: "x-request-timeout-ms", value: "2s" }),
    ]);
    expect(t.rows()).toHaveLength(2);
  });

  it("drops, unserved, a queued request whose client left before its turn", { timeout: 30_000 }, async () => {
    const { logger, lines } = capturingLogger();
    const clock = testClock({ cpuPerRead: 1_000 });
    const t = await app({ listen: true, overrides: { admissionClock: clock, logger } });
    const headers = { ...t.auth, "Content-Type": "application/json" };
    const serverSideClosed = new Promise((resolve) =>
      t.server.once("connection", (socket) => socket.once("close", resolve)),
    );
    // Parsed (node:http sends its 100 Continue) and queued, with no dispatch budget; then its client leaves.
    const leaving = slowPost(`${t.url}/plants`, headers, '{"id": 1, "name": "Gone"}');
    await leaving.inFlight;
    leaving.abort();
    await expect(leaving.response).rejects.toThrow();
    await serverSideClosed;
    clock.settings.cpuPerRead = 0;
    await vi.waitFor(() =>
      expect(lines().filter((line) => line.msg === "requests shed")).toEqual([
        expect.objectContaining({ shed: 0, dropped: 1 }),
      ]),
    );
    expect((await fetch(`${t.url}/plants`, plant(2, t.auth))).status).toBe(200);
    expect(t.rows().map((row) => row.name)).toEqual(["Monstera"]);
  });
});
