import request from "supertest";
import { describe, expect, it } from "vitest";
import { capturingLogger } from "./support/log-capture.js";
import { TEST_SECRET, type TestServerOptions, testApps } from "./support/test-server.js";

// Depending on the platform's dual-stack setup, a loopback client shows as either form.
const LOOPBACK = expect.stringMatching(/^(::ffff:)?127\.0\.0\.1$/);
const testApp = testApps({ store: "memory" });

async function appWithCapturedLogs(overrides: TestServerOptions = {}) {
  const logs = capturingLogger();
  const app = await testApp({ ...overrides, overrides: { logger: logs.logger, ...overrides.overrides } });
  const completed = () => logs.lines().filter((line) => line.msg === "request completed");
  return { ...app, logs, completed };
}

describe("request logs", () => {
  it("honour an incoming X-Request-Id, echo it, and log one line with method, route, status and latency", async () => {
    const t = await appWithCapturedLogs();
    const res = await request(t.app)
      .post("/plants")
      .set(t.auth)
      .set("X-Request-Id", "lb-7f3a.42")
      .send({ id: 1, name: "Monstera" });
    expect(res.status).toBe(200);
    expect(res.headers["x-request-id"]).toBe("lb-7f3a.42");
    const lines = t.completed();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 30,
      req: { id: "lb-7f3a.42", method: "POST", url: "/plants", remoteAddress: LOOPBACK },
      res: { statusCode: 200 },
      route: "/plants",
    });
    expect(lines[0]!.latencyMs).toEqual(expect.any(Number));
  });

  it("generate a UUID request id when none (or an unsafe one) is sent", async () => {
    const t = await appWithCapturedLogs();
    const res = await request(t.app).get("/healthz").set("X-Request-Id", "bad id\twith spaces");
    expect(res.headers["x-request-id"]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(t.completed()[0]).toMatchObject({ req: { id: res.headers["x-request-id"] }, route: "/healthz" });
  });

  it("never contain the bearer token, the secret, or a query string, for accepted and rejected requests", async () => {
    const t = await appWithCapturedLogs();
    await request(t.app).post("/plants").set(t.auth).send({ id: 2, name: "Fern" }).expect(200);
    await request(t.app).post(`/plants?access_token=${t.token}`).set(t.auth).send({ id: 3, name: 5 }).expect(400);
    await request(t.app).post("/plants").set("Authorization", `Bearer ${t.token}x`).send({}).expect(401);
    expect(t.completed().map((line) => line.res)).toEqual([
      { statusCode: 200 },
      { statusCode: 400 },
      { statusCode: 401 },
    ]);
    expect(t.completed()[1]).toMatchObject({ req: { url: "/plants" }, route: "/plants" });
    expect(t.completed()[2]).toMatchObject({ route: "/plants" });
    const text = t.logs.text();
    expect(text).not.toContain(t.token);
    expect(text).not.toContain(TEST_SECRET);
    expect(text.toLowerCase()).not.toContain("bearer");
  });

  it("label requests that matched no route as unmatched, not by their raw path", async () => {
    const t = await appWithCapturedLogs();
    await request(t.app).get("/no/such/thing/12345").expect(404);
    expect(t.completed()[0]).toMatchObject({ route: "unmatched", res: { statusCode: 404 } });
  });

  it("log a 503 from /readyz in an outage as a warning with its cause, one while shutting down as info, an unexpected failure as an error", async () => {
    const t = await appWithCapturedLogs();
    await t.store.close();
    await request(t.app).get("/readyz").expect(503);
    await request(t.app).post("/plants").set(t.auth).send({ id: 4, name: "Closed store" }).expect(500);
    t.lifecycle.beginShutdown();
    await request(t.app).get("/readyz").expect(503);
    const lines = t.logs.lines().filter((line) => line.req !== undefined && line.res !== undefined);
    expect(lines.map((line) => [line.level, line.route, (line.res as { statusCode: number }).statusCode])).toEqual([
      [40, "/readyz", 503],
      [50, "/plants", 500],
      [30, "/readyz", 503],
    ]);
    const causes = t.logs.lines().filter((line) => line.msg === "the store is unreachable");
    expect(causes).toEqual([
      expect.objectContaining({ level: 40, err: expect.objectContaining({ message: expect.any(String) }) }),
    ]);
  });

  it("take the client address from X-Forwarded-For only when TRUST_PROXY trusts the hop", async () => {
    const trusting = await appWithCapturedLogs({ env: { TRUST_PROXY: "loopback" } });
    await request(trusting.app).get("/healthz").set("X-Forwarded-For", "203.0.113.7").expect(200);
    expect(trusting.completed()[0]).toMatchObject({ req: { remoteAddress: "203.0.113.7" } });

    const untrusting = await appWithCapturedLogs();
    await request(untrusting.app).get("/healthz").set("X-Forwarded-For", "203.0.113.7").expect(200);
    expect(untrusting.completed()[0]).toMatchObject({ req: { remoteAddress: LOOPBACK } });
  });
});
