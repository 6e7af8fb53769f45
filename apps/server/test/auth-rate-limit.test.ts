import { ErrorCode } from "@plant-store/contract";
import jwt from "jsonwebtoken";
import type request from "supertest";
import { describe, expect, it } from "vitest";
import { type TestApp, testApps } from "./support/test-server.js";
import { nowSeconds } from "./support/tokens.js";

const SECRET = "rate-limit-test-secret-of-at-least-32-chars";

const apps = testApps({ store: "memory", env: { JWT_SECRET: SECRET } });
const appWith = (env: Record<string, string>) => apps({ env });

const tokenFor = (sub: string | undefined) =>
  jwt.sign({ exp: nowSeconds() + 60, ...(sub !== undefined && { sub }) }, SECRET);

let nextId = 1;
const post = (t: TestApp, token: string, body: string | object = { id: nextId++, name: "Fern" }) =>
  t.post(body, { token });

function expectRateLimited(res: request.Response) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ error: ErrorCode.RateLimited, message: expect.stringMatching(/limit is 3 per minute/) });
  const retryAfter = Number(res.headers["retry-after"]);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

describe("POST /plants with RATE_LIMIT_PER_MINUTE=3", () => {
  it("the 4th request of one subject in a minute gets 429 with Retry-After and stores nothing", async () => {
    const t = await appWith({ RATE_LIMIT_PER_MINUTE: "3" });
    const alice = tokenFor("alice");
    for (let i = 0; i < 3; i++) expect((await post(t, alice)).status).toBe(200);
    expectRateLimited(await post(t, alice));
    expect(t.rowCount()).toBe(3);
  });

  it("counts per token subject: another subject still gets through", async () => {
    const t = await appWith({ RATE_LIMIT_PER_MINUTE: "3" });
    for (let i = 0; i < 3; i++) await post(t, tokenFor("alice"));
    expectRateLimited(await post(t, tokenFor("alice")));
    // A new token for the same subject shares its budget; a different subject has its own.
    expectRateLimited(await post(t, tokenFor("alice")));
    expect((await post(t, tokenFor("bob"))).status).toBe(200);
  });

  it("announces the budget in the IETF RateLimit-Policy and RateLimit fields on a 200", async () => {
    const t = await appWith({ RATE_LIMIT_PER_MINUTE: "3" });
    const res = await post(t, tokenFor("carol"));
    expect(res.status).toBe(200);
    expect(res.headers["ratelimit-policy"]).toMatch(/^"3-in-1min"; q=3; w=60; pk=:[A-Za-z0-9+/=]+:$/);
    expect(res.headers.ratelimit).toMatch(/^"3-in-1min"; r=2; t=([1-9]|[1-5]\d|60)$/);
  });

  it("a 429 carries RateLimit-Policy and RateLimit (none remaining, reset = Retry-After) beside Retry-After", async () => {
    const t = await appWith({ RATE_LIMIT_PER_MINUTE: "3" });
    const grace = tokenFor("grace");
    for (let i = 0; i < 3; i++) await post(t, grace);
    const res = await post(t, grace);
    expectRateLimited(res);
    expect(res.headers["ratelimit-policy"]).toMatch(/^"3-in-1min"; q=3; w=60; pk=:[A-Za-z0-9+/=]+:$/);
    expect(res.headers.ratelimit).toBe(`"3-in-1min"; r=0; t=${res.headers["retry-after"]}`);
  });

  it("the partition key names the subject's budget without revealing the subject", async () => {
    const t = await appWith({ RATE_LIMIT_PER_MINUTE: "3" });
    const partitionKey = async (sub: string) =>
      /pk=:([^:]+):/.exec((await post(t, tokenFor(sub))).headers["ratelimit-policy"] ?? "")?.[1];
    const heidi = await partitionKey("heidi");
    expect(await partitionKey("heidi")).toBe(heidi);
    expect(await partitionKey("ivan")).not.toBe(heidi);
    expect(Buffer.from(heidi ?? "", "base64").toString()).not.toContain("heidi");
  });

  it("limits before the body is read: an over-limit request with a malformed body is 429", async () => {
    const t = await appWith({ RATE_LIMIT_PER_MINUTE: "3" });
    const dave = tokenFor("dave");
    for (let i = 0; i < 3; i++) await post(t, dave);
    expectRateLimited(await post(t, dave, "{not json"));
  });

  it("does not count requests whose token is refused", async () => {
    const t = await appWith({ RATE_LIMIT_PER_MINUTE: "3" });
    for (let i = 0; i < 5; i++) expect((await post(t, "a.b.c")).status).toBe(401);
    expect((await post(t, tokenFor("erin"))).status).toBe(200);
  });

  it("limits tokens without sub by client address", async () => {
    const t = await appWith({ RATE_LIMIT_PER_MINUTE: "3" });
    for (let i = 0; i < 3; i++) expect((await post(t, tokenFor(undefined))).status).toBe(200);
    expectRateLimited(await post(t, tokenFor(undefined)));
  });
});

describe("POST /plants without RATE_LIMIT_PER_MINUTE", () => {
  it("does not limit: 25 requests of one subject all succeed, without RateLimit headers", async () => {
    const t = await appWith({});
    const frank = tokenFor("frank");
    for (let i = 0; i < 25; i++) {
      const res = await post(t, frank);
      expect(res.status).toBe(200);
      expect(res.headers.ratelimit).toBeUndefined();
      expect(res.headers["ratelimit-policy"]).toBeUndefined();
    }
    expect(t.rowCount()).toBe(25);
  });
});
