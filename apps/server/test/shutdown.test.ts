import { join } from "node:path";
import { ErrorCode } from "@plant-store/contract";
import { describe, expect, it } from "vitest";
import { signToken } from "../src/auth/sign-token.js";
import { startServerProcess } from "./support/server-process.js";
import { tempDir } from "@plant-store/test-support/temp-dir";
import { slowPost } from "./support/slow-request.js";
import { querySqliteFile } from "@plant-store/test-support/sqlite-file";

const SECRET = "shutdown-test-secret-of-at-least-32-chars";

async function start(env: Record<string, string> = {}) {
  const dir = tempDir("plant-store-shutdown-");
  const databaseFile = join(dir, "plants.db");
  const server = await startServerProcess({ DATABASE_URL: databaseFile, JWT_SECRET: SECRET, ...env });
  const headers = { authorization: `Bearer ${signToken({ secret: SECRET })}`, "content-type": "application/json" };
  const storedNames = () =>
    querySqliteFile(databaseFile, (db) =>
      db
        .prepare("SELECT name FROM plants ORDER BY id")
        .all()
        .map((row) => row.name),
    );
  return { server, headers, storedNames };
}

// Each test starts and stops a real process; the readiness test also waits out a 3 s delay in the server.
describe("graceful shutdown of the built server", { timeout: 30_000 }, () => {
  it("SIGTERM during a slow upload stops accepting, completes that request with 200 and exits 0", async () => {
    const { server, headers, storedNames } = await start();
    const upload = slowPost(`${server.baseUrl}/plants`, headers, '{"id": 1, "name": "Slow Monstera", "tag": "late"}');
    await upload.inFlight;

    server.child.kill("SIGTERM");
    await server.waitForStdout(/no longer accepting connections/);
    await expect(fetch(`${server.baseUrl}/healthz`)).rejects.toThrow();

    upload.finish();
    const res = await upload.response;
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ name: "Slow Monstera", tag: "late" });
    expect(await server.exited).toBe(0);
    expect(server.stdout()).toContain('"msg":"stopped"');
    expect(storedNames()).toEqual(["Slow Monstera"]);
  });

  it("/readyz answers 503 from the signal on while /healthz and requests in flight still succeed", async () => {
    // The delay keeps the listener open after SIGTERM, as a load balancer needs to see readiness fail.
    const { server, headers, storedNames } = await start({ SHUTDOWN_DELAY_MS: "3000" });
    const ready = await fetch(`${server.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    const upload = slowPost(`${server.baseUrl}/plants`, headers, '{"id": 2, "name": "Fern"}');
    await upload.inFlight;

    server.child.kill("SIGTERM");
    await server.waitForStdout(/readiness is now 503/);
    const notReady = await fetch(`${server.baseUrl}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toEqual({ error: ErrorCode.ShuttingDown, message: "the server is shutting down" });
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);

    upload.finish();
    expect((await upload.response).status).toBe(200);
    expect(await server.exited).toBe(0);
    expect(storedNames()).toEqual(["Fern"]);
  });

  it("cuts off a request still unfinished after SHUTDOWN_TIMEOUT_MS, stores nothing from it and exits 0", async () => {
    const { server, headers, storedNames } = await start({ SHUTDOWN_TIMEOUT_MS: "300" });
    const upload = slowPost(`${server.baseUrl}/plants`, headers, '{"id": 3, "name": "Never finished"}');
    await upload.inFlight;

    server.child.kill("SIGTERM");
    await expect(upload.response).rejects.toThrow();
    expect(await server.exited).toBe(0);
    expect(server.stdout()).toContain("shutdown timeout reached");
    expect(server.stdout()).toContain('"msg":"stopped"');
    expect(storedNames()).toEqual([]);
  });
});

describe("metrics on a separate port (METRICS_PORT)", { timeout: 30_000 }, () => {
  it("serve GET /metrics there only, count API requests, and close with the server", async () => {
    // A short keep-alive timeout: the stop need not wait for fetch's idle connection (drain is tested above).
    const { server, headers } = await start({ METRICS_PORT: "0", KEEP_ALIVE_TIMEOUT_MS: "500" });
    const metricsUrl = (await server.waitForStdout(/"metricsUrl":"([^"]+)"/))[1]!;
    expect((await fetch(`${server.baseUrl}/metrics`)).status).toBe(404);

    const created = await fetch(`${server.baseUrl}/plants`, {
      method: "POST",
      headers,
      body: '{"id": 4, "name": "Ivy"}',
    });
    expect(created.status).toBe(200);
    const scrape = await fetch(metricsUrl);
    expect(scrape.status).toBe(200);
    expect(await scrape.text()).toMatch(/^http_requests_total\{method="POST",route="\/plants",status="200"\} 1$/m);
    expect((await fetch(metricsUrl.replace(/\/metrics$/, "/plants"))).status).toBe(404);

    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  });
});
