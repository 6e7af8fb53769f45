import request from "supertest";
import { describe, expect, it } from "vitest";
import { createMetrics } from "../src/process-state/metrics.js";
import { slowPost } from "./support/slow-request.js";
import { testApps } from "./support/test-server.js";

const startTestApp = testApps({ store: "memory" });

/** The value of one sample line of the Prometheus text exposition, or 0 when the series does not exist yet. */
function sample(exposition: string, series: string): number {
  const line = exposition.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe("GET /metrics", () => {
  it("serves Prometheus text with process metrics, unauthenticated", async () => {
    const t = await startTestApp();
    const res = await request(t.app).get("/metrics");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const name of [
      "process_cpu_user_seconds_total",
      "process_resident_memory_bytes",
      "nodejs_eventloop_lag_seconds",
      "nodejs_heap_size_used_bytes",
    ]) {
      expect(res.text).toContain(`# TYPE ${name} `);
    }
  });

  it("counts and times requests by route and status, and times the store, after requests", async () => {
    const t = await startTestApp();
    const before = (await request(t.app).get("/metrics")).text;
    const created = 'http_requests_total{method="POST",route="/plants",status="200"}';
    const conflicts = 'http_requests_total{method="POST",route="/plants",status="409"}';
    const unauthorized = 'http_requests_total{method="POST",route="/plants",status="401"}';
    const unmatched = 'http_requests_total{method="GET",route="unmatched",status="404"}';

    await request(t.app).post("/plants").set(t.auth).send({ id: 1, name: "Monstera" }).expect(200);
    await request(t.app).post("/plants").set(t.auth).send({ id: 2, name: "Fern" }).expect(200);
    await request(t.app).post("/plants").set(t.auth).send({ id: 1, name: "Not a Monstera" }).expect(409);
    await request(t.app).post("/plants").send({ id: 3, name: "Ivy" }).expect(401);
    await request(t.app).get("/plants/1/anything").expect(404);

    const after = (await request(t.app).get("/metrics")).text;
    expect(sample(after, created) - sample(before, created)).toBe(2);
    expect(sample(after, conflicts) - sample(before, conflicts)).toBe(1);
    expect(sample(after, unauthorized) - sample(before, unauthorized)).toBe(1);
    expect(sample(after, unmatched) - sample(before, unmatched)).toBe(1);
    expect(after).not.toContain("/plants/1/anything");

    const latencyCount = 'http_request_duration_seconds_count{method="POST",route="/plants",status="200"}';
    expect(sample(after, latencyCount)).toBe(2);
    expect(
      sample(after, 'http_request_duration_seconds_bucket{le="+Inf",method="POST",route="/plants",status="200"}'),
    ).toBe(2);
    expect(
      sample(after, 'http_request_duration_seconds_sum{method="POST",route="/plants",status="200"}'),
    ).toBeGreaterThan(0);

    expect(sample(after, 'plant_store_operation_duration_seconds_count{operation="create",outcome="created"}')).toBe(2);
    expect(sample(after, 'plant_store_operation_duration_seconds_count{operation="create",outcome="conflict"}')).toBe(
      1,
    );
  });

  it("times readiness pings of the store", async () => {
    const t = await startTestApp();
    await request(t.app).get("/readyz").expect(200);
    const text = (await request(t.app).get("/metrics")).text;
    expect(sample(text, 'plant_store_operation_duration_seconds_count{operation="ping",outcome="ok"}')).toBe(1);
  });

  it("counts a request whose client gave up before the response as aborted", async () => {
    const metrics = createMetrics();
    const t = await startTestApp({ listen: true, overrides: { metrics } });
    const upload = slowPost(
      `${t.url}/plants`,
      { ...t.auth, "content-type": "application/json" },
      '{"id": 1, "name": "Gone"}',
    );
    await upload.inFlight;
    // The server notices the closed socket a few event-loop turns later; wait for that, not for a time.
    const countedAborted = async () =>
      (await metrics.httpRequests.get()).values.some((value) => value.labels.status === "aborted");
    upload.abort();
    while (!(await countedAborted())) await new Promise(setImmediate);
    const text = await metrics.registry.metrics();
    expect(sample(text, 'http_requests_total{method="POST",route="/plants",status="aborted"}')).toBe(1);
    expect(sample(text, 'http_requests_total{method="POST",route="/plants",status="200"}')).toBe(0);
    expect(t.rows()).toEqual([]);
  });

  it("is not served on the API port when metrics have a port of their own", async () => {
    const metrics = createMetrics();
    const t = await startTestApp({ env: { METRICS_PORT: "0" }, overrides: { metrics } });
    await request(t.app).get("/metrics").expect(404);
    await request(t.app).post("/plants").set(t.auth).send({ id: 1, name: "Monstera" }).expect(200);
    const text = await metrics.registry.metrics();
    expect(sample(text, 'http_requests_total{method="POST",route="/plants",status="200"}')).toBe(1);
  });
});
