import { ErrorCode } from "@plant-store/contract";
import jwt from "jsonwebtoken";
import type request from "supertest";
import { describe, expect, it } from "vitest";
import { type TestApp, testApps } from "./support/test-server.js";
import { nowSeconds } from "./support/tokens.js";

const SECRET = "scope-test-secret-of-at-least-32-characters";

const apps = testApps({ store: "memory", env: { JWT_SECRET: SECRET } });
const appWith = (env: Record<string, string>) => apps({ env });

const tokenWith = (claims: object) => jwt.sign({ sub: "alice", exp: nowSeconds() + 60, ...claims }, SECRET);

const post = (t: TestApp, token: string, body = '{"id": 1, "name": "Fern"}') => t.post(body, { token });

async function expectInsufficientScope(t: TestApp, res: request.Response, scope: string) {
  expect(res.status).toBe(403);
  expect(res.body).toEqual({ error: ErrorCode.InsufficientScope, message: `token lacks the required scope: ${scope}` });
  expect(res.headers["www-authenticate"]).toBe(
    `Bearer realm="plant-store", error="insufficient_scope", scope="${scope}"`,
  );
  expect(t.rowCount()).toBe(0);
}

describe("POST /plants with JWT_REQUIRED_SCOPE=plants:write", () => {
  it.each([
    ["a space-separated scope claim", { scope: "plants:read plants:write" }],
    ["an scp array", { scp: ["plants:read", "plants:write"] }],
    ["an scp string", { scp: "plants:write" }],
  ])("with the scope in %s returns 200", async (_how, claims) => {
    const t = await appWith({ JWT_REQUIRED_SCOPE: "plants:write" });
    expect((await post(t, tokenWith(claims))).status).toBe(200);
    expect(t.rowCount()).toBe(1);
  });

  it.each([
    ["no scope claim", {}],
    ["other scopes only", { scope: "plants:read" }],
    ["a scope that only starts like it", { scope: "plants:writer" }],
    ["a scope claim that is not a string", { scope: ["plants:write"] }],
  ])("with %s returns 403 insufficient_scope and stores nothing", async (_how, claims) => {
    const t = await appWith({ JWT_REQUIRED_SCOPE: "plants:write" });
    await expectInsufficientScope(t, await post(t, tokenWith(claims)), "plants:write");
  });

  it("requires every scope of a space-separated JWT_REQUIRED_SCOPE", async () => {
    const t = await appWith({ JWT_REQUIRED_SCOPE: "plants:write plants:admin" });
    await expectInsufficientScope(t, await post(t, tokenWith({ scope: "plants:write" })), "plants:write plants:admin");
    expect((await post(t, tokenWith({ scope: "plants:admin plants:write" }))).status).toBe(200);
  });

  it("checks the scope before the body: a token without it and a malformed body gets 403", async () => {
    const t = await appWith({ JWT_REQUIRED_SCOPE: "plants:write" });
    await expectInsufficientScope(t, await post(t, tokenWith({}), "{not json"), "plants:write");
  });

  it("an invalid token is still 401, not 403", async () => {
    const t = await appWith({ JWT_REQUIRED_SCOPE: "plants:write" });
    const res = await post(t, jwt.sign({ scope: "plants:write", exp: nowSeconds() - 60 }, SECRET));
    expect(res.status).toBe(401);
    expect(res.body.error).toBe(ErrorCode.InvalidToken);
  });

  it("without JWT_REQUIRED_SCOPE a token without scopes is accepted", async () => {
    const t = await appWith({});
    expect((await post(t, tokenWith({}))).status).toBe(200);
  });
});
