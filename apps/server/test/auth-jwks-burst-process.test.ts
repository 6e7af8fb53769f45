import { join } from "node:path";
import { ErrorCode } from "@plant-store/contract";
import jwt from "jsonwebtoken";
import { describe, expect, it } from "vitest";
import { startJwksServer } from "./support/jwks-server.js";
import { plantBody, postPlant, startServerProcess } from "./support/server-process.js";
import { tempDir } from "@plant-store/test-support/temp-dir";
import { generateSigningKey, IDP_AUDIENCE, IDP_ISSUER, idpClaims, type SigningKeyPair } from "./support/tokens.js";

const UNKNOWN_KEY = {
  status: 401,
  challenge: 'Bearer realm="plant-store", error="invalid_token", error_description="token signing key is unknown"',
  body: { error: ErrorCode.InvalidToken, message: "token signing key is unknown" },
};

const sign = (key: SigningKeyPair, kid: string, claims: object = idpClaims()) =>
  jwt.sign(claims, key.privateKey, { algorithm: "ES256", keyid: kid });

describe("the built server with JWT_JWKS_URI and JWT_JWKS_REQUESTS_PER_MINUTE=10", () => {
  it("meets 40 concurrent tokens with made-up kids with one fetch at a time, at most 10 in the minute, and 401s", async () => {
    const published = generateSigningKey("P-256", "published");
    const attacker = generateSigningKey("P-256");
    // Answers held a while, as a distant identity provider's are: fetches that overlapped would be seen overlapping.
    const jwks = await startJwksServer([published.jwk], { latencyMs: 50 });
    const server = await startServerProcess({
      NODE_ENV: "production",
      DATABASE_URL: join(tempDir("plant-store-jwks-burst-"), "plants.db"),
      JWT_JWKS_URI: jwks.url,
      JWT_ISSUER: IDP_ISSUER,
      JWT_AUDIENCE: IDP_AUDIENCE,
      JWT_JWKS_REQUESTS_PER_MINUTE: "10",
    });
    const attempt = async (token: string, id: number) => {
      const res = await postPlant(server, token, plantBody(id, "Fern"));
      return { status: res.status, challenge: res.headers.get("www-authenticate"), body: await res.json() };
    };
    expect((await attempt(sign(published, published.kid), 1)).status).toBe(200);
    expect(jwks.hits()).toBe(1);

    const burst = await Promise.all(
      Array.from({ length: 40 }, (_, i) => attempt(sign(attacker, `made-up-${i}`), 100 + i)),
    );
    expect(burst).toEqual(Array(40).fill(UNKNOWN_KEY));
    expect(jwks.mostInFlight()).toBe(1);
    expect(jwks.hits()).toBeLessThanOrEqual(10);

    // One at a time, made-up kids spend what the burst left of the minute's 10 fetches, and not one more.
    for (let i = 0; i < 12; i++) expect(await attempt(sign(attacker, `one-by-one-${i}`), 200 + i)).toEqual(UNKNOWN_KEY);
    expect(jwks.hits()).toBe(10);
    expect(jwks.mostInFlight()).toBe(1);

    // The published key, fetched before, is still held: a new token signed with it needs no fetch.
    expect((await attempt(sign(published, published.kid, { ...idpClaims(), sub: "bob" }), 2)).status).toBe(200);
    expect(jwks.hits()).toBe(10);
    expect(server.stderr()).toBe("");
  });
});
