import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { signToken } from "../src/auth/sign-token.js";
import { runServerExpectingExit, startServerProcess } from "./support/server-process.js";
import { tempDir } from "@plant-store/test-support/temp-dir";

const SECRET = "process-test-secret-of-at-least-32-chars";

const createPlant = (baseUrl: string, token: string, body: string) =>
  fetch(`${baseUrl}/plants`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body,
  });

describe("the built server run with plain node", () => {
  it("in development without JWT_SECRET prints a ready token and a curl example that work", async () => {
    const server = await startServerProcess({ DATABASE_URL: join(tempDir("plant-store-process-"), "plants.db") });
    const token = (await server.waitForStdout(/valid for 24 hours:\s+(\S+)/))[1];
    expect(token).toBeDefined();
    await server.waitForStdout(/Set JWT_SECRET/);
    expect(server.stdout()).toContain(`curl -s -X POST ${server.baseUrl}/plants`);
    const res = await createPlant(server.baseUrl, token!, '{"id": 1, "name": "Monstera"}');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ name: "Monstera" });
  });

  it("with JWT_SECRET accepts tokens for it, creates its database folder, logs JSON lines without the token", async () => {
    const databaseFile = join(tempDir("plant-store-process-"), "deep", "plants.db");
    const server = await startServerProcess({ DATABASE_URL: `file://${databaseFile}`, JWT_SECRET: SECRET });
    const token = signToken({ secret: SECRET });
    const res = await createPlant(server.baseUrl, token, '{"id": 2, "name": "Fern"}');
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    await server.waitForStdout(/"msg":"request completed"/);
    const logLines = server.stdout().trim().split("\n");
    const requestLine = logLines.map((line) => JSON.parse(line)).find((entry) => entry.msg === "request completed");
    expect(requestLine).toMatchObject({ req: { method: "POST", url: "/plants" }, res: { statusCode: 200 } });
    expect(requestLine.req.id).toBe(res.headers.get("x-request-id"));
    expect(server.stdout()).not.toContain(token);
    expect(server.stdout()).not.toContain(SECRET);
  });

  // fetch keeps its connection open after the answer, and the server waits for it to go rather than close it
  // under a request that may be on its way; a short keep-alive timeout ends that wait sooner.
  it("on SIGTERM finishes, closes the store and exits 0", { timeout: 15_000 }, async () => {
    const server = await startServerProcess({
      DATABASE_URL: join(tempDir("plant-store-process-"), "plants.db"),
      JWT_SECRET: SECRET,
      KEEP_ALIVE_TIMEOUT_MS: "500",
    });
    const res = await createPlant(server.baseUrl, signToken({ secret: SECRET }), '{"id": 3, "name": "Ivy"}');
    expect(res.status).toBe(200);
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    expect(server.stdout()).toContain('"msg":"stopped"');
  });

  it("with an invalid PORT exits 1 naming the variable", async () => {
    const result = await runServerExpectingExit({ PORT: "not-a-port" });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^invalid configuration: PORT: /);
  });

  it("with NODE_ENV=production and no JWT configuration refuses to start", async () => {
    const result = await runServerExpectingExit({ NODE_ENV: "production" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("JWT_SECRET: is required when NODE_ENV=production");
  });
});
