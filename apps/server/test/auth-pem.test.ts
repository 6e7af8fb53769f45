import { writeFileSync } from "node:fs";
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
import { tempDir } from "@plant-store/test-support/temp-dir";
import { type TestApp, testApps } from "./support/test-server.js";

const rsa = generateSigningKey("rsa");
const rsaPss = generateSigningKey("rsa-pss");
const p256 = generateSigningKey("P-256");
const p384 = generateSigningKey("P-384");

const apps = testApps({ store: "memory", env: { JWT_ISSUER: IDP_ISSUER, JWT_AUDIENCE: IDP_AUDIENCE } });
const appWith = (env: Record<string, string>) => apps({ env });

const sign = (key: SigningKeyPair, algorithm: jwt.Algorithm) => jwt.sign(idpClaims(), key.privateKey, { algorithm });

const post = (t: TestApp, token: string) => t.post({ id: 1, name: "Fern" }, { token });

async function expectInvalidToken(t: TestApp, token: string, message: RegExp) {
  const res = await post(t, token);
  expect(res.status).toBe(401);
  expect(res.body).toEqual({ error: ErrorCode.InvalidToken, message: expect.stringMatching(message) });
  expect(res.headers["www-authenticate"]).toContain('error="invalid_token"');
  expect(t.rowCount()).toBe(0);
}

describe("POST /plants with JWT_PUBLIC_KEY (PEM)", () => {
  it.each([
    ["RS256", rsa],
    ["PS256", rsa],
    ["ES256", p256],
    ["ES384", p384],
    ["PS256", rsaPss],
  ] as const)("accepts a %s token signed by the key's private half", async (algorithm, key) => {
    const t = await appWith({ JWT_PUBLIC_KEY: key.pem });
    const res = await post(t, sign(key, algorithm));
    expect(res.status).toBe(200);
    expect(t.rowCount()).toBe(1);
  });

  it("accepts the PEM with its newlines written as \\n (one-line variables)", async () => {
    const t = await appWith({ JWT_PUBLIC_KEY: rsa.pem.replaceAll("\n", "\\n") });
    expect((await post(t, sign(rsa, "RS256"))).status).toBe(200);
  });

  it("reads the key from JWT_PUBLIC_KEY_FILE", async () => {
    const dir = tempDir("plant-store-pem-");
    writeFileSync(join(dir, "idp.pem"), p256.pem);
    const t = await appWith({ JWT_PUBLIC_KEY_FILE: join(dir, "idp.pem") });
    expect((await post(t, sign(p256, "ES256"))).status).toBe(200);
  });

  it("with a token signed by another RSA key returns 401 invalid_token", async () => {
    const t = await appWith({ JWT_PUBLIC_KEY: rsa.pem });
    await expectInvalidToken(t, sign(generateSigningKey("rsa"), "RS256"), /signature is invalid/);
  });

  it("by default refuses RS512 from an RSA key; JWT_ALGORITHMS=RS512 allows it", async () => {
    const strict = await appWith({ JWT_PUBLIC_KEY: rsa.pem });
    await expectInvalidToken(strict, sign(rsa, "RS512"), /algorithm is not accepted/);
    const widened = await appWith({ JWT_PUBLIC_KEY: rsa.pem, JWT_ALGORITHMS: "RS256,RS512" });
    expect((await post(widened, sign(rsa, "RS512"))).status).toBe(200);
  });

  it("with JWT_ALGORITHMS=RS256 refuses a PS256 token from the same key", async () => {
    const t = await appWith({ JWT_PUBLIC_KEY: rsa.pem, JWT_ALGORITHMS: "RS256" });
    await expectInvalidToken(t, sign(rsa, "PS256"), /algorithm is not accepted/);
  });

  it("refuses an HS256 token whose HMAC secret is the public key (algorithm confusion)", async () => {
    const t = await appWith({ JWT_PUBLIC_KEY: rsa.pem });
    await expectInvalidToken(t, hmacSignedToken(rsa.pem, idpClaims()), /algorithm is not accepted/);
    const oneLine = await appWith({ JWT_PUBLIC_KEY: rsa.pem.replaceAll("\n", "\\n") });
    await expectInvalidToken(oneLine, hmacSignedToken(rsa.pem.trim(), idpClaims()), /algorithm is not accepted/);
  });

  it("refuses an unsigned alg=none token", async () => {
    const t = await appWith({ JWT_PUBLIC_KEY: p256.pem });
    await expectInvalidToken(t, unsignedToken(idpClaims()), /algorithm is not accepted|malformed/);
  });

  it("refuses a token signed with an EC key of another curve (ES384 against a P-256 key)", async () => {
    const t = await appWith({ JWT_PUBLIC_KEY: p256.pem });
    await expectInvalidToken(t, sign(p384, "ES384"), /algorithm is not accepted/);
  });

  it("still checks exp, issuer and audience", async () => {
    const t = await appWith({ JWT_PUBLIC_KEY: rsa.pem });
    const expired = jwt.sign({ ...idpClaims(), exp: nowSeconds() - 60 }, rsa.privateKey, { algorithm: "RS256" });
    await expectInvalidToken(t, expired, /expired/);
    const otherIssuer = jwt.sign({ ...idpClaims(), iss: "https://evil.example" }, rsa.privateKey, {
      algorithm: "RS256",
    });
    await expectInvalidToken(t, otherIssuer, /issuer/);
    const otherAudience = jwt.sign({ ...idpClaims(), aud: "another-api" }, rsa.privateKey, { algorithm: "RS256" });
    await expectInvalidToken(t, otherAudience, /audience/);
  });
});
