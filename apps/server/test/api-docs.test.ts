import { buildOpenApiDocument } from "@plant-store/contract/openapi";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { testApps } from "./support/test-server.js";

const app = testApps({ store: "memory" });

describe("API docs", () => {
  it("GET /openapi.json serves the document generated from the contract, unauthenticated", async () => {
    const t = await app();
    const res = await request(t.app).get("/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
    expect(res.body.paths["/plants"].post).toBeDefined();
    expect(res.body.servers).toBeUndefined();
  });

  it("GET /openapi.json lists PUBLIC_URL as the API's server when it is configured", async () => {
    const t = await app({ env: { PUBLIC_URL: "https://plants.example.com" } });
    const res = await request(t.app).get("/openapi.json");
    expect(res.body.servers).toEqual([{ url: "https://plants.example.com" }]);
  });

  it("GET /docs serves an HTML page that loads only same-origin scripts and styles", async () => {
    const t = await app();
    const res = await request(t.app).get("/docs");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    const sources = [...res.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(sources).toEqual([
      "/docs/favicon-32x32.png",
      "/docs/swagger-ui.css",
      "/docs/swagger-ui-bundle.js",
      "/docs/init.js",
    ]);
    expect(res.text).not.toMatch(/<script>[^<]/);
    expect(res.headers["content-security-policy"]).toContain("script-src 'self'");
  });

  it("serves the page's assets from the installed swagger-ui-dist package", async () => {
    const t = await app();
    const css = await request(t.app).get("/docs/swagger-ui.css");
    expect(css.status).toBe(200);
    expect(css.headers["content-type"]).toMatch(/^text\/css/);
    const bundle = await request(t.app).get("/docs/swagger-ui-bundle.js");
    expect(bundle.status).toBe(200);
    expect(bundle.headers["content-type"]).toMatch(/javascript/);
    expect(bundle.text.length).toBeGreaterThan(500_000);
    const init = await request(t.app).get("/docs/init.js");
    expect(init.text).toContain('url: "/openapi.json"');
  });
});
