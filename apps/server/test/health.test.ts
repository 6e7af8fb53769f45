import { ErrorCode } from "@plant-store/contract";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { slowPost } from "./support/slow-request.js";
import { testApps } from "./support/test-server.js";

const app = testApps({ store: "memory" });

describe("health checks", () => {
  it("GET /healthz answers 200 JSON without a token and is never cached", async () => {
    const t = await app();
    const res = await request(t.app).get("/healthz");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.body).toEqual({ status: "ok" });
  });

  it("GET /readyz answers 200 when the store answers a query", async () => {
    const t = await app();
    const res = await request(t.app).get("/readyz");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ready" });
  });

  it("GET /readyz answers 503 StoreUnavailable once the store is closed, while /healthz stays 200", async () => {
    const t = await app();
    await t.store.close();
    const res = await request(t.app).get("/readyz");
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: ErrorCode.StoreUnavailable, message: "the store is unreachable" });
    expect(JSON.stringify(res.body)).not.toMatch(/sqlite|database|\//i);
    await request(t.app).get("/healthz").expect(200);
  });

  it("GET /readyz answers 503 once shutdown has begun, and responses then ask clients to close the connection", async () => {
    const t = await app();
    await request(t.app).get("/readyz").expect(200);
    t.lifecycle.beginShutdown();
    const res = await request(t.app).get("/readyz");
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: ErrorCode.ShuttingDown, message: "the server is shutting down" });
    expect(res.headers.connection).toBe("close");
    // Requests in flight and late arrivals are still served while draining.
    const created = await request(t.app).post("/plants").set(t.auth).send({ id: 1, name: "Monstera" });
    expect(created.status).toBe(200);
  });

  it("a request already being handled when shutdown begins is answered 200 with Connection: close", async () => {
    const t = await app({ listen: true });
    const headers = { authorization: `Bearer ${t.token}`, "content-type": "application/json" };
    const upload = slowPost(`${t.url}/plants`, headers, '{"id": 2, "name": "Fern"}');
    await upload.inFlight;
    t.lifecycle.beginShutdown();
    upload.finish();
    const res = await upload.response;
    expect(res.status).toBe(200);
    expect(res.headers.connection).toBe("close");
  });
});
