import { generateKeyPairSync } from "node:crypto";
import { ErrorCode } from "@plant-store/contract";
import jwt from "jsonwebtoken";
import request from "supertest";
import { beforeEach, describe, expect, it } from "vitest";
import { signToken } from "../src/auth/sign-token.js";
import { startTestApp, TEST_SECRET, type TestApp } from "./support/test-server.js";

const ISSUER = "https://issuer.example";
const AUDIENCE = "plant-store";
const now = () => Math.floor(Date.now() / 1000);

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp({ store: "memory", issuer: ISSUER, audience: AUDIENCE, bodyLimitBytes: 1024 });
});

const sign = (claims: object, options: jwt.SignOptions = {}, secret: jwt.Secret = TEST_SECRET) =>
  jwt.sign({ iss: ISSUER, aud: AUDIENCE, exp: now() + 60, ...claims }, secret, { algorithm: "HS256", ...options });

const postWith = (authorization: string | undefined, body: object = { id: 1, name: "Fern" }) => {
  const req = request(t.app).post("/plants").set("Content-Type", "application/json");
  if (authorization !== undefined) req.set("Authorization", authorization);
  return req.send(JSON.stringify(body));
};

/** 401, the contract's Error body, the RFC 6750 challenge, and nothing stored. */
function expectUnauthorized(res: request.Response, code: number, message: RegExp) {
  expect(res.status).toBe(401);
  expect(res.body).toEqual({ error: code, message: expect.stringMatching(message) });
  const challenge = res.headers["www-authenticate"];
  expect(challenge).toMatch(/^Bearer realm="plant-store"/);
  if (code === ErrorCode.InvalidToken) expect(challenge).toContain('error="invalid_token"');
  else expect(challenge).not.toContain("error=");
  expect(t.rows()).toEqual([]);
}

describe("POST /plants bearer authentication", () => {
  it("with a valid token for the configured issuer and audience returns 200", async () => {
    const res = await postWith(`Bearer ${sign({})}`);
    expect(res.status).toBe(200);
  });

  it("accepts the scheme name in any case", async () => {
    const res = await postWith(`bearer ${sign({})}`);
    expect(res.status).toBe(200);
  });

  it("without an Authorization header returns 401 without an error attribute", async () => {
    expectUnauthorized(await postWith(undefined), ErrorCode.MissingToken, /bearer token is required/);
  });

  it("with another scheme (Basic) returns 401 as if no token was sent", async () => {
    expectUnauthorized(await postWith("Basic dXNlcjpwYXNz"), ErrorCode.MissingToken, /bearer token is required/);
  });

  it("with an empty Bearer credential returns 401 invalid_token", async () => {
    expectUnauthorized(await postWith("Bearer "), ErrorCode.InvalidToken, /malformed/);
  });

  it("with a malformed token returns 401 invalid_token", async () => {
    expectUnauthorized(await postWith("Bearer not-a-jwt"), ErrorCode.InvalidToken, /malformed/);
    expectUnauthorized(await postWith("Bearer a.b.c"), ErrorCode.InvalidToken, /malformed/);
  });

  it("with an expired token returns 401 invalid_token", async () => {
    expectUnauthorized(await postWith(`Bearer ${sign({ exp: now() - 60 })}`), ErrorCode.InvalidToken, /expired/);
  });

  it("with a token that is not valid yet returns 401 invalid_token", async () => {
    expectUnauthorized(await postWith(`Bearer ${sign({ nbf: now() + 120 })}`), ErrorCode.InvalidToken, /not valid yet/);
  });

  it("allows a few seconds of clock skew on exp", async () => {
    const res = await postWith(`Bearer ${sign({ exp: now() - 2 })}`);
    expect(res.status).toBe(200);
  });

  it("with a token without exp returns 401 invalid_token", async () => {
    const token = jwt.sign({ iss: ISSUER, aud: AUDIENCE }, TEST_SECRET, { algorithm: "HS256" });
    expectUnauthorized(await postWith(`Bearer ${token}`), ErrorCode.InvalidToken, /no exp/);
  });

  it("with a token signed by another secret returns 401 invalid_token", async () => {
    const token = sign({}, {}, "another-secret-that-is-at-least-32-characters");
    expectUnauthorized(await postWith(`Bearer ${token}`), ErrorCode.InvalidToken, /signature is invalid/);
  });

  it("with an unsigned alg=none token returns 401 invalid_token", async () => {
    const token = jwt.sign({ iss: ISSUER, aud: AUDIENCE, exp: now() + 60 }, "", { algorithm: "none" });
    expectUnauthorized(
      await postWith(`Bearer ${token}`),
      ErrorCode.InvalidToken,
      /algorithm is not accepted|malformed/,
    );
  });

  it("with an algorithm outside the allowlist (HS512) returns 401 invalid_token", async () => {
    const token = sign({}, { algorithm: "HS512" });
    expectUnauthorized(await postWith(`Bearer ${token}`), ErrorCode.InvalidToken, /algorithm is not accepted/);
  });

  it("with an RS256 token returns 401 invalid_token", async () => {
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const token = sign({}, { algorithm: "RS256" }, privateKey);
    expectUnauthorized(await postWith(`Bearer ${token}`), ErrorCode.InvalidToken, /algorithm is not accepted/);
  });

  it("with a token for another issuer returns 401 invalid_token", async () => {
    expectUnauthorized(
      await postWith(`Bearer ${sign({ iss: "https://evil.example" })}`),
      ErrorCode.InvalidToken,
      /issuer/,
    );
  });

  it("with a token for another audience returns 401 invalid_token", async () => {
    expectUnauthorized(await postWith(`Bearer ${sign({ aud: "someone-else" })}`), ErrorCode.InvalidToken, /audience/);
  });

  it("checks auth before the body: no token and a malformed body is 401", async () => {
    const res = await request(t.app).post("/plants").set("Content-Type", "application/json").send("{not json");
    expectUnauthorized(res, ErrorCode.MissingToken, /bearer token/);
  });

  it("checks auth before the body: an invalid token and an oversized body is 401, not 413", async () => {
    const res = await postWith("Bearer a.b.c", { id: 1, name: "x".repeat(4096) });
    expectUnauthorized(res, ErrorCode.InvalidToken, /malformed/);
  });

  it("the token signToken makes (what `pnpm run token` prints) is accepted", async () => {
    const token = signToken({ secret: TEST_SECRET, issuer: ISSUER, audience: AUDIENCE });
    expect((await postWith(`Bearer ${token}`)).status).toBe(200);
  });
});
