import { join } from "node:path";
import { ErrorCode } from "@plant-store/contract";
import jwt from "jsonwebtoken";
import { describe, expect, it } from "vitest";
import {
  generateSigningKey,
  IDP_AUDIENCE,
  IDP_ISSUER,
  idpClaims,
  hmacSignedToken,
  nowSeconds,
  type SigningKeyPair,
  unsignedToken,
} from "./support/tokens.js";
import { type TestApp, testApps } from "./support/test-server.js";
import { type JwksServer, startJwksServer } from "./support/jwks-server.js";
import { startServerProcess } from "./support/server-process.js";
import { tempDir } from "@plant-store/test-support/temp-dir";

const jwksServer = startJwksServer;

const apps = testApps({ store: "memory", env: { JWT_ISSUER: IDP_ISSUER, JWT_AUDIENCE: IDP_AUDIENCE } });
const startApp = (env: Record<string, string>) => apps({ env });
const appFor = (jwks: JwksServer, env: Record<string, string> = {}) => startApp({ JWT_JWKS_URI: jwks.url, ...env });

const sign = (key: SigningKeyPair, algorithm: jwt.Algorithm = "RS256", kid = key.kid) =>
  jwt.sign(idpClaims(), key.privateKey, { algorithm, keyid: kid });

let nextId = 1;
const post = (t: TestApp, token: string) => t.post({ id: nextId++, name: "Fern" }, { token });

async function expectInvalidToken(t: TestApp, token: string, message: RegExp) {
  const res = await post(t, token);
  expect(res.status).toBe(401);
  expect(res.body).toEqual({ error: ErrorCode.InvalidToken, message: expect.stringMatching(message) });
  expect(res.headers["www-authenticate"]).toContain('error="invalid_token"');
}

describe("POST /plants with JWT_JWKS_URI", () => {
  it("accepts RS256, PS256 and ES256 tokens by kid and fetches the key set once while keys are cached", async () => {
    const rsa = generateSigningKey("rsa", "rsa-1");
    const ec = generateSigningKey("P-256", "ec-1");
    const jwks = await jwksServer([rsa.jwk, ec.jwk]);
    const t = await appFor(jwks);
    expect((await post(t, sign(rsa, "RS256"))).status).toBe(200);
    expect((await post(t, sign(rsa, "PS256"))).status).toBe(200);
    expect(jwks.hits()).toBe(1);
    expect((await post(t, sign(ec, "ES256"))).status).toBe(200);
    expect((await post(t, sign(ec, "ES256"))).status).toBe(200);
    expect(jwks.hits()).toBe(2);
    expect(t.rowCount()).toBe(4);
  });

  it("picks up a rotated key: a token with the new kid triggers a refresh and is accepted", async () => {
    const before = generateSigningKey("rsa", "2026-01");
    const after = generateSigningKey("rsa", "2026-02");
    const jwks = await jwksServer([before.jwk]);
    const t = await appFor(jwks);
    expect((await post(t, sign(before))).status).toBe(200);
    expect(jwks.hits()).toBe(1);

    jwks.rotate([after.jwk]);
    expect((await post(t, sign(after))).status).toBe(200);
    expect(jwks.hits()).toBe(2);
    // The retired key stays trusted from the cache until JWT_JWKS_CACHE_MAX_AGE_SECONDS passes.
    expect((await post(t, sign(before))).status).toBe(200);
    expect(jwks.hits()).toBe(2);
  });

  it("rate-limits refreshes for unknown kids: 10 made-up kids cost at most JWT_JWKS_REQUESTS_PER_MINUTE fetches", async () => {
    const published = generateSigningKey("rsa", "published");
    const attacker = generateSigningKey("rsa");
    const jwks = await jwksServer([published.jwk]);
    const t = await appFor(jwks, { JWT_JWKS_REQUESTS_PER_MINUTE: "3" });
    expect((await post(t, sign(published))).status).toBe(200);
    expect(jwks.hits()).toBe(1);

    for (let i = 0; i < 10; i++) {
      await expectInvalidToken(t, sign(attacker, "RS256", `made-up-${i}`), /signing key is unknown/);
    }
    expect(jwks.hits()).toBe(3);
    // Keys already cached keep working while refreshes are exhausted.
    expect((await post(t, sign(published))).status).toBe(200);
    expect(jwks.hits()).toBe(3);
    expect(t.rowCount()).toBe(2);
  });

  it("fetches the key set once for 20 concurrent requests with a new kid", async () => {
    const key = generateSigningKey("P-256", "concurrent");
    const jwks = await jwksServer([key.jwk]);
    const t = await appFor(jwks);
    const statuses = await Promise.all(
      Array.from({ length: 20 }, () => post(t, sign(key, "ES256")).then((r) => r.status)),
    );
    expect(statuses).toEqual(Array(20).fill(200));
    expect(jwks.hits()).toBe(1);
  });

  it("refuses HS256 signed with a published public key (algorithm confusion) without fetching keys", async () => {
    const key = generateSigningKey("rsa", "confused");
    const jwks = await jwksServer([key.jwk]);
    const t = await appFor(jwks);
    await expectInvalidToken(t, hmacSignedToken(key.pem, idpClaims(), { kid: key.kid }), /algorithm is not accepted/);
    await expectInvalidToken(
      t,
      hmacSignedToken(JSON.stringify(key.jwk), idpClaims(), { kid: key.kid }),
      /algorithm is not accepted/,
    );
    expect(jwks.hits()).toBe(0);
    expect(t.rowCount()).toBe(0);
  });

  it("refuses an unsigned alg=none token without fetching keys", async () => {
    const key = generateSigningKey("rsa", "none");
    const jwks = await jwksServer([key.jwk]);
    const t = await appFor(jwks);
    await expectInvalidToken(t, unsignedToken(idpClaims(), { kid: key.kid }), /algorithm is not accepted/);
    expect(jwks.hits()).toBe(0);
  });

  it("uses a key whose JWK declares alg only with that algorithm", async () => {
    const key = generateSigningKey("rsa", "rs256-only");
    const jwks = await jwksServer([{ ...key.jwk, alg: "RS256" }]);
    const t = await appFor(jwks);
    expect((await post(t, sign(key, "RS256"))).status).toBe(200);
    await expectInvalidToken(t, sign(key, "PS256"), /algorithm is not accepted/);
  });

  it("with JWT_ALGORITHMS=ES256 refuses an RS256 token before fetching keys", async () => {
    const key = generateSigningKey("rsa", "rsa-refused");
    const jwks = await jwksServer([key.jwk]);
    const t = await appFor(jwks, { JWT_ALGORITHMS: "ES256" });
    await expectInvalidToken(t, sign(key, "RS256"), /algorithm is not accepted/);
    expect(jwks.hits()).toBe(0);
  });

  it("refuses a token whose kid is not a string without fetching keys", async () => {
    const key = generateSigningKey("rsa", "string-kid");
    const jwks = await jwksServer([key.jwk]);
    const t = await appFor(jwks);
    const objectKid = jwt.sign(idpClaims(), key.privateKey, {
      algorithm: "RS256",
      header: { alg: "RS256", kid: { $ne: 1 } as never },
    });
    await expectInvalidToken(t, objectKid, /malformed/);
    expect(jwks.hits()).toBe(0);
  });

  it("refuses a token without kid when the set holds several keys", async () => {
    const first = generateSigningKey("rsa", "first");
    const jwks = await jwksServer([first.jwk, generateSigningKey("rsa", "second").jwk]);
    const t = await appFor(jwks);
    const withoutKid = jwt.sign(idpClaims(), first.privateKey, { algorithm: "RS256" });
    await expectInvalidToken(t, withoutKid, /signing key is unknown/);
  });

  it("checks signature, exp and audience with the fetched key", async () => {
    const key = generateSigningKey("rsa", "checked");
    const jwks = await jwksServer([key.jwk]);
    const t = await appFor(jwks);
    const forged = jwt.sign(idpClaims(), generateSigningKey("rsa").privateKey, { algorithm: "RS256", keyid: key.kid });
    await expectInvalidToken(t, forged, /signature is invalid/);
    const expired = jwt.sign({ ...idpClaims(), exp: nowSeconds() - 60 }, key.privateKey, {
      algorithm: "RS256",
      keyid: key.kid,
    });
    await expectInvalidToken(t, expired, /expired/);
    const otherAudience = jwt.sign({ ...idpClaims(), aud: "x" }, key.privateKey, {
      algorithm: "RS256",
      keyid: key.kid,
    });
    await expectInvalidToken(t, otherAudience, /audience/);
  });

  it("when the JWKS endpoint cannot be reached answers 503 IdentityProviderUnavailable with Retry-After and stores nothing", async () => {
    const key = generateSigningKey("rsa", "unreachable");
    const jwks = await startJwksServer([key.jwk]);
    const t = await appFor(jwks);
    await jwks.close();
    const res = await post(t, sign(key));
    expect(res.status).toBe(503);
    expect(res.headers["retry-after"]).toBe("5");
    expect(res.body).toEqual({
      error: ErrorCode.IdentityProviderUnavailable,
      message: "the identity provider's signing keys cannot be fetched right now; retry later",
    });
    expect(t.rowCount()).toBe(0);
  });

  it("the built server started with only JWT_JWKS_URI in production accepts the provider's tokens", async () => {
    const key = generateSigningKey("P-256", "process");
    const jwks = await jwksServer([key.jwk]);
    const dir = tempDir("plant-store-jwks-");
    const server = await startServerProcess({
      NODE_ENV: "production",
      DATABASE_URL: join(dir, "plants.db"),
      JWT_JWKS_URI: jwks.url,
      JWT_ISSUER: IDP_ISSUER,
      JWT_AUDIENCE: IDP_AUDIENCE,
    });
    const res = await fetch(`${server.baseUrl}/plants`, {
      method: "POST",
      headers: { authorization: `Bearer ${sign(key, "ES256")}`, "content-type": "application/json" },
      body: '{"id": 7, "name": "Monstera"}',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ name: "Monstera" });
    expect(jwks.hits()).toBe(1);
  });
});
