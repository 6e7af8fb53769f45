import { join } from "node:path";
import { ErrorCode } from "@plant-store/contract";
import jwt from "jsonwebtoken";
import { describe, expect, it } from "vitest";
import { runCli } from "./support/cli-process.js";
import { generateSigningKey, nowSeconds } from "./support/tokens.js";
import { runServerExpectingExit, startServerProcess } from "./support/server-process.js";
import { tempDir } from "@plant-store/test-support/temp-dir";

const key = generateSigningKey("rsa");

const tokenWith = (claims: object) =>
  jwt.sign({ sub: "alice", exp: nowSeconds() + 60, ...claims }, key.privateKey, { algorithm: "RS256" });

const createPlant = (baseUrl: string, token: string, id: number) =>
  fetch(`${baseUrl}/plants`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ id, name: "Fern" }),
  });

describe("the built server configured for an identity provider", () => {
  it("with a one-line JWT_PUBLIC_KEY, JWT_REQUIRED_SCOPE and RATE_LIMIT_PER_MINUTE enforces all three", async () => {
    const dir = tempDir("plant-store-idp-");
    const server = await startServerProcess({
      NODE_ENV: "production",
      DATABASE_URL: join(dir, "plants.db"),
      JWT_PUBLIC_KEY: key.pem.replaceAll("\n", "\\n"),
      JWT_REQUIRED_SCOPE: "plants:write",
      RATE_LIMIT_PER_MINUTE: "2",
    });

    const withoutScope = await createPlant(server.baseUrl, tokenWith({}), 1);
    expect(withoutScope.status).toBe(403);
    expect(await withoutScope.json()).toMatchObject({ error: ErrorCode.InsufficientScope });

    const allowed = tokenWith({ scope: "plants:write" });
    expect((await createPlant(server.baseUrl, allowed, 2)).status).toBe(200);
    expect((await createPlant(server.baseUrl, allowed, 3)).status).toBe(200);
    const limited = await createPlant(server.baseUrl, allowed, 4);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await limited.json()).toMatchObject({ error: ErrorCode.RateLimited });
    expect(server.stderr()).toBe("");
  });

  it("with a JWT_PUBLIC_KEY that is not a key exits 1 naming the variable", async () => {
    const result = await runServerExpectingExit({ JWT_PUBLIC_KEY: "-----BEGIN PUBLIC KEY-----\\nnope" });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^invalid configuration: JWT_PUBLIC_KEY: /);
  });

  it("with JWT_SECRET_PREVIOUS equal to JWT_SECRET exits 1 naming it, the secret not shown; the CLI refuses it alike", async () => {
    const secret = "the-same-secret-twice-of-at-least-32-characters";
    const env = { NODE_ENV: "production", JWT_SECRET: secret, JWT_SECRET_PREVIOUS: secret };
    const message =
      "invalid configuration: JWT_SECRET_PREVIOUS: equals JWT_SECRET; set it to the secret being retired, or unset it once the rotation is over\n";
    expect(await runServerExpectingExit(env)).toEqual({ code: 1, stdout: "", stderr: message });
    expect(await runCli(["issue-token"], env)).toEqual({
      code: 1,
      stdout: "",
      stderr: `plant-store issue-token: ${message}`,
    });
  });

  it("with JWT_ALGORITHMS the key cannot verify exits 1 naming JWT_ALGORITHMS", async () => {
    const result = await runServerExpectingExit({ JWT_PUBLIC_KEY: key.pem, JWT_ALGORITHMS: "HS256" });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^invalid configuration: JWT_ALGORITHMS: HS256 cannot be verified/);
  });
});
