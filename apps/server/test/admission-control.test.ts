import { ErrorCode } from "@plant-store/contract";
import { describe, expect, it } from "vitest";
import type { AdmissionClock } from "../src/connection/admission-clock.js";
import { capturingLogger } from "./support/log-capture.js";
import { slowPost } from "./support/slow-request.js";
import { type ListeningTestApp, testApps } from "./support/test-server.js";

/** A clock the test sets: wall time stands at `nowMs` until the test moves it; the event loop is `loopDelayMs` late. */
function testClock(): AdmissionClock & { nowMs: number; loopDelay: number } {
  const clock = {
    nowMs: 0,
    loopDelay: 0,
    wallMs: () => clock.nowMs,
    loopDelayMs: () => clock.loopDelay,
  };
  return clock;
}

const app = testApps();
const post = (t: ListeningTestApp, id: number, headers: Record<string, string> = {}) =>
  fetch(`${t.url}/plants`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...t.auth, ...headers },
    body: `{"id": ${id}, "name": "Monstera"}`,
  });
const OVERLOADED = {
  error: ErrorCode.Overloaded,
  message: "the server is over capacity; retry after Retry-After seconds",
};

/**
 * One request answered `latencyMs` after it arrived, by the test's clock, then half a second on: the server's last
 * window of answers says a request takes that long.
 */
async function answeredIn(t: ListeningTestApp, clock: ReturnType<typeof testClock>, id: number, latencyMs: number) {
  const headers = { ...t.auth, "Content-Type": "application/json" };
  const slow = slowPost(`${t.url}/plants`, headers, `{"id": ${id}, "name": "Slow"}`);
  await slow.inFlight;
  clock.nowMs += latencyMs;
  slow.finish();
  expect((await slow.response).status).toBe(200);
  clock.nowMs += 500;
}

describe("a server that cannot answer a request before its deadline", () => {
  it("refuses with the static 503 Overloaded and Retry-After, before auth, once answers take QUEUE_TIMEOUT_MS, and logs it", async () => {
    const { logger, lines } = capturingLogger();
    const clock = testClock();
    const t = await app({
      listen: true,
      env: { QUEUE_TIMEOUT_MS: "2000" },
      overrides: { admissionClock: clock, logger },
    });
    await answeredIn(t, clock, 1, 2_000);
    const res = await fetch(`${t.url}/plants`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Request-Id": "overload-1" },
      body: '{"id": 2, "name": "Refused"}',
    });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    // No request id, no work of any kind: the refusal is the same bytes every time.
    expect(res.headers.get("x-request-id")).toBeNull();
    expect(await res.json()).toEqual(OVERLOADED);
    expect(t.rows().map((row) => row.name)).toEqual(["Slow"]);
    expect(lines().filter((line) => line.msg === "requests shed")).toEqual([
      expect.objectContaining({ level: 40, shed: 1, typicalMs: 2_000, slowMs: 2_000, res: { statusCode: 503 } }),
    ]);
    const metrics = await t.metrics.registry.getSingleMetricAsString("plant_store_requests_shed_total");
    expect(metrics).toMatch(/^plant_store_requests_shed_total 1$/m);
  });

  it("serves again once answers are quick, and never refuses a closed loop whose answers take less than the timeout", async () => {
    const clock = testClock();
    const t = await app({ listen: true, env: { QUEUE_TIMEOUT_MS: "2000" }, overrides: { admissionClock: clock } });
    await answeredIn(t, clock, 1, 1_999);
    expect((await post(t, 2)).status).toBe(200);
    await answeredIn(t, clock, 3, 2_000);
    expect((await post(t, 4)).status).toBe(503);
    // A whole window with nothing answered: what the server knew is forgotten.
    clock.nowMs += 1_000;
    expect((await post(t, 5)).status).toBe(200);
  });

  it("never refuses GET /healthz, /readyz or /metrics: readiness stays 200 while every request is refused", async () => {
    const clock = testClock();
    const t = await app({ listen: true, env: { QUEUE_TIMEOUT_MS: "2000" }, overrides: { admissionClock: clock } });
    await answeredIn(t, clock, 1, 5_000);
    for (let round = 0; round < 3; round++) {
      expect((await post(t, 10 + round)).status).toBe(503);
      expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${t.url}/readyz`)).status).toBe(200);
      expect((await fetch(`${t.url}/metrics`)).status).toBe(200);
    }
  });

  it("serves every request when ADMISSION_CONTROL=false", async () => {
    const clock = testClock();
    const t = await app({
      listen: true,
      env: { ADMISSION_CONTROL: "false", QUEUE_TIMEOUT_MS: "2000" },
      overrides: { admissionClock: clock },
    });
    await answeredIn(t, clock, 1, 5_000);
    for (let round = 0; round < 3; round++) expect((await post(t, 10 + round)).status).toBe(200);
  });

  it("refuses a request whose stated deadline is shorter than recent answers took plus the event loop's delay", async () => {
    const clock = testClock();
    const t = await app({ listen: true, overrides: { admissionClock: clock } });
    await answeredIn(t, clock, 1, 300);
    clock.loopDelay = 150;
    // 300 ms to answer, 150 ms unread: 450 ms are needed.
    expect((await post(t, 2, { "X-Envoy-Expected-Rq-Timeout-Ms": "450" })).status).toBe(503);
    expect((await post(t, 3, { "X-Request-Timeout-Ms": "451" })).status).toBe(200);
    // The shorter of the two headers counts; the server's own timeout (10 s) is not the caller's deadline.
    expect(
      (await post(t, 4, { "X-Request-Timeout-Ms": "60000", "X-Envoy-Expected-Rq-Timeout-Ms": "400" })).status,
    ).toBe(503);
    expect((await post(t, 5, { "X-Request-Timeout-Ms": "60000" })).status).toBe(200);
    expect(t.rows().map((row) => Number(row.id))).toEqual([1, 3, 5]);
  });

  it("ignores a deadline header it cannot read, logging it once per header, and serves the request", async () => {
    const { logger, lines } = capturingLogger();
    const t = await app({ listen: true, overrides: { admissionClock: testClock(), logger } });
    for (const id of [1, 2]) expect((await post(t, id, { "X-Request-Timeout-Ms": "2s" })).status).toBe(200);
    expect(lines().filter((line) => String(line.msg).startsWith("deadline header ignored"))).toEqual([
      expect.objectContaining({ level: 40, header: "x-request-timeout-ms", value: "2s" }),
    ]);
    expect(t.rows()).toHaveLength(2);
  });
});
