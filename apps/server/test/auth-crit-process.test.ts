import { join } from "node:path";
import { ErrorCode } from "@plant-store/contract";
import jwt from "jsonwebtoken";
import { describe, expect, it } from "vitest";
import { startJwksServer } from "./support/jwks-server.js";
import { plantBody, postPlant, startServerProcess } from "./support/server-process.js";
import { tempDir } from "@plant-store/test-support/temp-dir";
import { generateSigningKey, IDP_AUDIENCE, IDP_ISSUER, idpClaims, TEST_SECRET } from "./support/tokens.js";

const CRIT_REFUSED = "token header lists a critical extension (crit) the server does not understand";

/** One key source: the server's settings for it, and a token its key signs with the extra header fields given. */
interface KeySource {
  name: string;
  env: () => Promise<Record<string, string>>;
  sign: (claims: object, header?: object) => string;
}

const rsa = generateSigningKey("rsa");
const ec = generateSigningKey("P-256", "ec-1");

const sources: KeySource[] = [
  {
    name: "JWT_SECRET",
    env: async () => ({ JWT_SECRET: TEST_SECRET }),
    sign: (claims, header) =>
      jwt.sign(claims, TEST_SECRET, { algorithm: "HS256", header: { alg: "HS256", ...header } }),
  },
  {
    name: "JWT_PUBLIC_KEY",
    env: async () => ({ JWT_PUBLIC_KEY: rsa.pem.replaceAll("\n", "\\n") }),
    sign: (claims, header) =>
      jwt.sign(claims, rsa.privateKey, { algorithm: "RS256", header: { alg: "RS256", ...header } }),
  },
  {
    name: "JWT_JWKS_URI",
    env: async () => ({ JWT_JWKS_URI: (await startJwksServer([ec.jwk])).url }),
    sign: (claims, header) =>
      jwt.sign(claims, ec.privateKey, { algorithm: "ES256", header: { alg: "ES256", kid: ec.kid, ...header } }),
  },
];

// RFC 7515 section 4.1.11: a JWS whose `crit` lists an extension the recipient does not understand is invalid.
const MUST_UNDERSTAND = { crit: ["urn:example:must-understand"], "urn:example:must-understand": true };

describe.each(sources)("the built server with $name", (source) => {
  it("refuses a correctly signed token whose header lists a crit extension with 401 invalid_token, every time", async () => {
    const server = await startServerProcess({
      NODE_ENV: "production",
      DATABASE_URL: join(tempDir("plant-store-crit-"), "plants.db"),
      JWT_ISSUER: IDP_ISSUER,
      JWT_AUDIENCE: IDP_AUDIENCE,
      ...(await source.env()),
    });
    const claims = idpClaims();
    // The same claims without crit verify, and sit in the cache of verified tokens while the crit token is tried.
    expect((await postPlant(server, source.sign(claims), plantBody(1, "Fern"))).status).toBe(200);

    const critical = source.sign(claims, MUST_UNDERSTAND);
    // Sent twice: a refusal is never remembered, so the second meets the same check.
    for (const id of [2, 3]) {
      const refused = await postPlant(server, critical, plantBody(id, "Fern"));
      expect(refused.status).toBe(401);
      expect(refused.headers.get("www-authenticate")).toBe(
        `Bearer realm="plant-store", error="invalid_token", error_description="${CRIT_REFUSED}"`,
      );
      expect(await refused.json()).toEqual({ error: ErrorCode.InvalidToken, message: CRIT_REFUSED });
    }
    // Listing only a registered header parameter, or an empty list, is no better (the RFC forbids both).
    for (const crit of [["alg"], []]) {
      const refused = await postPlant(server, source.sign(claims, { crit }), plantBody(4, "Fern"));
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({ error: ErrorCode.InvalidToken, message: CRIT_REFUSED });
    }
    expect(server.stderr()).toBe("");
  });
});
