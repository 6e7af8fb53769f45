import { ErrorCode } from "@plant-store/contract";
import express from "express";
import helmet from "helmet";
import request from "supertest";
import { securityHeaders } from "../src/edge/security-headers.js";
import { describe, expect, it } from "vitest";
import { testApps } from "./support/test-server.js";

const testApp = testApps({ store: "memory" });
const app = (corsOrigins?: string[]) => testApp(corsOrigins ? { env: { CORS_ORIGINS: corsOrigins.join(",") } } : {});

describe("security headers", () => {
  it("every response carries helmet's headers and no X-Powered-By", async () => {
    const t = await app();
    const res = await request(t.app).post("/plants").set(t.auth).send({ id: 1, name: "Monstera" });
    expect(res.status).toBe(200);
    expect(res.headers["x-powered-by"]).toBeUndefined();
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["x-frame-options"]).toBe("SAMEORIGIN");
    expect(res.headers["strict-transport-security"]).toMatch(/max-age=\d+/);
    expect(res.headers["content-security-policy"]).toContain("script-src 'self'");
    expect(res.headers["content-security-policy"]).not.toContain("upgrade-insecure-requests");
  });

  it("error responses carry them too", async () => {
    const t = await app();
    const res = await request(t.app).get("/nowhere");
    expect(res.status).toBe(404);
    expect(res.headers["x-powered-by"]).toBeUndefined();
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
  });
});

describe("CORS", () => {
  it("an allowed origin gets Access-Control-Allow-Origin and may read Retry-After, WWW-Authenticate, X-Request-Id and the RateLimit fields", async () => {
    const t = await app(["https://app.example.com", "http://localhost:5173"]);
    const res = await request(t.app)
      .post("/plants")
      .set(t.auth)
      .set("Origin", "http://localhost:5173")
      .send({ id: 1, name: "Monstera" });
    expect(res.status).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBe("http://localhost:5173");
    expect(res.headers["access-control-expose-headers"]).toBe(
      "Retry-After,WWW-Authenticate,X-Request-Id,RateLimit,RateLimit-Policy",
    );
    expect(res.headers.vary).toMatch(/Origin/);
  });

  it("a preflight from an allowed origin allows POST with Authorization and Content-Type", async () => {
    const t = await app(["https://app.example.com"]);
    const res = await request(t.app)
      .options("/plants")
      .set("Origin", "https://app.example.com")
      .set("Access-Control-Request-Method", "POST")
      .set("Access-Control-Request-Headers", "authorization,content-type");
    expect(res.status).toBe(204);
    expect(res.headers["access-control-allow-origin"]).toBe("https://app.example.com");
    expect(res.headers["access-control-allow-methods"]).toContain("POST");
    expect(res.headers["access-control-allow-headers"]).toBe(
      "Authorization,Content-Type,X-Request-Id,X-Request-Timeout-Ms",
    );
  });

  it("an origin not on the list gets no Access-Control-Allow-Origin, and none is allowed by default", async () => {
    const listed = await app(["https://app.example.com"]);
    const other = await request(listed.app)
      .options("/plants")
      .set("Origin", "https://evil.example.net")
      .set("Access-Control-Request-Method", "POST");
    expect(other.headers["access-control-allow-origin"]).toBeUndefined();

    const unlisted = await app();
    const res = await request(unlisted.app)
      .post("/plants")
      .set(unlisted.auth)
      .set("Origin", "https://app.example.com")
      .send({ id: 2, name: "Fern" });
    expect(res.status).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("an OPTIONS request without Origin is not a preflight: it gets the contract's 404, not an empty 204", async () => {
    for (const origins of [[], ["https://app.example.com"]]) {
      const t = await app(origins);
      const res = await request(t.app).options("/plants");
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: ErrorCode.NotFound, message: "no route for OPTIONS /plants" });
    }
  });
});

describe("securityHeaders()", () => {
  it("sends exactly the headers helmet itself sends per request with the same configuration", async () => {
    const withHelmet = express()
      .use(helmet({ contentSecurityPolicy: { useDefaults: true, directives: { "upgrade-insecure-requests": null } } }))
      .get("/", (_req, res) => {
        res.end();
      });
    const withOurs = express()
      .use(securityHeaders())
      .get("/", (_req, res) => {
        res.end();
      });
    const pick = (res: request.Response) => {
      const { date: _date, connection: _connection, ...rest } = res.headers;
      return rest;
    };
    expect(pick(await request(withOurs).get("/"))).toEqual(pick(await request(withHelmet).get("/")));
  });
});
