import request from "supertest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { startTestApp, type TestApp } from "./support/test-server.js";

const ALLOWED = "http://127.0.0.1:5173";
let t: TestApp;
beforeEach(async () => {
  t = await startTestApp({ corsOrigins: [ALLOWED] });
});
afterEach(async () => {
  await t.close();
});

describe("CORS for the origins in CORS_ORIGINS", () => {
  it("a preflight from an allowed origin is answered 204 without a token, allowing Authorization and POST", async () => {
    const res = await request(t.app)
      .options("/plants")
      .set("Origin", ALLOWED)
      .set("Access-Control-Request-Method", "POST")
      .set("Access-Control-Request-Headers", "authorization,content-type");
    expect(res.status).toBe(204);
    expect(res.headers["access-control-allow-origin"]).toBe(ALLOWED);
    expect(res.headers["access-control-allow-headers"]).toMatch(/Authorization/);
    expect(res.headers["access-control-allow-methods"]).toBe("POST");
  });

  it("POST /plants from an allowed origin carries Access-Control-Allow-Origin", async () => {
    const res = await request(t.app).post("/plants").set("Origin", ALLOWED).set(t.auth).send({ id: 1, name: "Fern" });
    expect(res.status).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBe(ALLOWED);
  });

  it("another origin gets no CORS headers", async () => {
    const res = await request(t.app).post("/plants").set("Origin", "http://evil.example").set(t.auth).send({ id: 2, name: "Fern" });
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("CORS_ORIGINS is a comma-separated list; a value that is not an origin exits with its name", () => {
    expect(loadConfig({ CORS_ORIGINS: "http://a.example, https://b.example" }).CORS_ORIGINS).toEqual([
      "http://a.example",
      "https://b.example",
    ]);
    expect(loadConfig({}).CORS_ORIGINS).toEqual([]);
    expect(() => loadConfig({ CORS_ORIGINS: "not an origin" })).toThrow(/CORS_ORIGINS/);
  });
});
