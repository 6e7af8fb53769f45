import { createSecretKey, type KeyObject } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ErrorCode } from "@plant-store/contract";
import jwt from "jsonwebtoken";
import { afterEach, describe, expect, it, vi } from "vitest";
import { JwtVerifier } from "../src/auth/jwt-verifier.js";
import { loadConfig } from "../src/config.js";
import { createTokenVerifier } from "../src/startup/token-verifier-from-config.js";
import {
  generateSigningKey,
  hmacSignedToken,
  IDP_AUDIENCE,
  IDP_ISSUER,
  idpClaims,
  type SigningKeyPair,
  unsignedToken,
} from "./support/tokens.js";
import { type TestApp, testApps } from "./support/test-server.js";
import { expectConfigError } from "./support/config-error.js";
import { tempDir } from "@plant-store/test-support/temp-dir";

const CURRENT = "the-secret-tokens-are-signed-with-now-0001";
const PREVIOUS = "the-secret-tokens-were-signed-with-before-01";
const rsa = generateSigningKey("rsa");
const nextRsa = generateSigningKey("rsa");
const p256 = generateSigningKey("P-256");

const apps = testApps({ store: "memory", env: { JWT_ISSUER: IDP_ISSUER, JWT_AUDIENCE: IDP_AUDIENCE } });
const appWith = (env: Record<string, string>) => apps({ env });

const hs256 = (secret: string) => jwt.sign(idpClaims(), createSecretKey(Buffer.from(secret)), { algorithm: "HS256" });
const signed = (key: SigningKeyPair, algorithm: jwt.Algorithm, header: object = {}) =>
  jwt.sign(idpClaims(), key.privateKey, { algorithm, header: { alg: algorithm, ...header } });

const post = (t: TestApp, token: string) => t.post({ id: 1, name: "Fern" }, { token });

async function expectInvalidToken(t: TestApp, token: string, message: RegExp) {
  const rowsBefore = t.rowCount();
  const res = await post(t, token);
  expect(res.status).toBe(401);
  expect(res.body).toEqual({ error: ErrorCode.InvalidToken, message: expect.stringMatching(message) });
  expect(t.rowCount()).toBe(rowsBefore);
}

/** Every way a public key's PEM may be written as an HMAC secret: as given, trimmed, on one line. */
const pemSpellings = (pem: string) => [pem, pem.trim(), pem.replaceAll("\n", "\\n"), pem.replaceAll("\n", "")];

afterEach(() => {
  vi.restoreAllMocks();
});

describe("key rotation: HS256 with JWT_SECRET_PREVIOUS", () => {
  it("accepts tokens signed with JWT_SECRET or JWT_SECRET_PREVIOUS, and refuses a third secret", async () => {
    const t = await appWith({ JWT_SECRET: CURRENT, JWT_SECRET_PREVIOUS: PREVIOUS });
    expect((await post(t, hs256(CURRENT))).status).toBe(200);
    expect((await post(t, hs256(PREVIOUS))).status).toBe(200);
    await expectInvalidToken(
      await appWith({ JWT_SECRET: CURRENT, JWT_SECRET_PREVIOUS: PREVIOUS }),
      hs256(`${CURRENT}x`),
      /signature is invalid/,
    );
  });

  it("says an expired token signed with JWT_SECRET_PREVIOUS has expired, not that its signature is wrong", async () => {
    const t = await appWith({ JWT_SECRET: CURRENT, JWT_SECRET_PREVIOUS: PREVIOUS });
    const expired = jwt.sign({ ...idpClaims(), exp: Math.floor(Date.now() / 1000) - 60 }, PREVIOUS, {
      algorithm: "HS256",
    });
    await expectInvalidToken(t, expired, /expired/);
  });

  it("refuses JWT_SECRET_PREVIOUS without JWT_SECRET, or shorter than 32 characters", () => {
    expectConfigError(
      () => loadConfig({ JWT_SECRET_PREVIOUS: PREVIOUS }),
      "JWT_SECRET_PREVIOUS",
      /only beside JWT_SECRET/,
    );
    expectConfigError(
      () => loadConfig({ JWT_PUBLIC_KEY: rsa.pem, JWT_SECRET_PREVIOUS: PREVIOUS }),
      "JWT_SECRET_PREVIOUS",
      /only beside JWT_SECRET/,
    );
    expectConfigError(
      () => loadConfig({ JWT_SECRET: CURRENT, JWT_SECRET_PREVIOUS: "short" }),
      "JWT_SECRET_PREVIOUS",
      /32 characters/,
    );
  });

  it("refuses JWT_SECRET_PREVIOUS equal to JWT_SECRET: a rotation that rotates nothing", () => {
    expectConfigError(
      () => loadConfig({ JWT_SECRET: CURRENT, JWT_SECRET_PREVIOUS: CURRENT }),
      "JWT_SECRET_PREVIOUS",
      /equals JWT_SECRET; set it to the secret being retired/,
    );
  });

  it("applies JWT_ALGORITHMS to both secrets", async () => {
    const t = await appWith({ JWT_SECRET: CURRENT, JWT_SECRET_PREVIOUS: PREVIOUS, JWT_ALGORITHMS: "HS512" });
    await expectInvalidToken(t, hs256(PREVIOUS), /algorithm is not accepted/);
    expect((await post(t, jwt.sign(idpClaims(), PREVIOUS, { algorithm: "HS512" }))).status).toBe(200);
  });
});

describe("key rotation: several PEM keys in JWT_PUBLIC_KEY", () => {
  it("accepts a token signed by any of the keys, of one type or mixed", async () => {
    const t = await appWith({ JWT_PUBLIC_KEY: `${rsa.pem}${nextRsa.pem}${p256.pem}` });
    expect((await post(t, signed(rsa, "RS256"))).status).toBe(200);
    expect((await post(t, signed(nextRsa, "PS256"))).status).toBe(200);
    expect((await post(t, signed(p256, "ES256"))).status).toBe(200);
    await expectInvalidToken(
      await appWith({ JWT_PUBLIC_KEY: `${rsa.pem}${p256.pem}` }),
      signed(nextRsa, "RS256"),
      /signature is invalid/,
    );
  });

  it("reads several keys from JWT_PUBLIC_KEY_FILE", async () => {
    const dir = tempDir("plant-store-pem-");
    writeFileSync(join(dir, "idp.pem"), `${rsa.pem}${p256.pem}`);
    const t = await appWith({ JWT_PUBLIC_KEY_FILE: join(dir, "idp.pem") });
    expect((await post(t, signed(rsa, "RS256"))).status).toBe(200);
    expect((await post(t, signed(p256, "ES256"))).status).toBe(200);
  });

  it("reads the keys written on one line with \\n, with text between them (a certificate bundle)", async () => {
    const bundle = `# current\n${rsa.pem}\n# next\n${nextRsa.pem}`.replaceAll("\n", "\\n");
    const t = await appWith({ JWT_PUBLIC_KEY: bundle });
    expect((await post(t, signed(nextRsa, "RS256"))).status).toBe(200);
  });

  it("refuses an HS256 token whose secret is any key's PEM (algorithm confusion), against every key", async () => {
    const t = await appWith({ JWT_PUBLIC_KEY: `${rsa.pem}${p256.pem}` });
    for (const key of [rsa, p256]) {
      for (const secret of pemSpellings(key.pem)) {
        await expectInvalidToken(t, hmacSignedToken(secret, idpClaims()), /algorithm is not accepted/);
      }
    }
    await expectInvalidToken(t, hmacSignedToken(`${rsa.pem}${p256.pem}`, idpClaims()), /algorithm is not accepted/);
    await expectInvalidToken(t, unsignedToken(idpClaims()), /algorithm is not accepted|malformed/);
  });

  it("applies JWT_ALGORITHMS to every key: RS256 only refuses a PS256 token from the second key", async () => {
    const t = await appWith({ JWT_PUBLIC_KEY: `${rsa.pem}${nextRsa.pem}`, JWT_ALGORITHMS: "RS256" });
    await expectInvalidToken(t, signed(nextRsa, "PS256"), /algorithm is not accepted/);
    expect((await post(t, signed(nextRsa, "RS256"))).status).toBe(200);
  });

  it("ignores what the token's header says about keys (kid, an embedded jwk): only the configured keys verify", async () => {
    const t = await appWith({ JWT_PUBLIC_KEY: `${rsa.pem}${p256.pem}` });
    const attacker = generateSigningKey("rsa");
    await expectInvalidToken(
      t,
      signed(attacker, "RS256", { jwk: attacker.jwk, kid: "anything" }),
      /signature is invalid/,
    );
    expect((await post(t, signed(rsa, "RS256", { kid: "no-such-key" }))).status).toBe(200);
  });

  it("validates each key at start and names the one that is wrong", () => {
    const configure = (env: Record<string, string>) => () => createTokenVerifier(loadConfig(env));
    const privatePem = rsa.privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    expectConfigError(
      configure({ JWT_PUBLIC_KEY: `${rsa.pem}${privatePem}` }),
      "JWT_PUBLIC_KEY",
      /key 2 of 2 is a private key/,
    );
    expectConfigError(
      configure({ JWT_PUBLIC_KEY: `${rsa.pem}-----BEGIN PUBLIC KEY-----\nbroken\n-----END PUBLIC KEY-----\n` }),
      "JWT_PUBLIC_KEY",
      /key 2 of 2 is not a PEM public key/,
    );
    expectConfigError(
      configure({ JWT_PUBLIC_KEY: `${generateSigningKey("ed25519").pem}${rsa.pem}` }),
      "JWT_PUBLIC_KEY",
      /key 1 of 2: ed25519 keys are not supported/,
    );
    expectConfigError(
      configure({ JWT_PUBLIC_KEY: `${rsa.pem}${p256.pem}`, JWT_ALGORITHMS: "RS256" }),
      "JWT_ALGORITHMS",
      /key 2 of 2 \(EC prime256v1 public key\) can verify none of RS256/,
    );
    expectConfigError(
      configure({ JWT_PUBLIC_KEY: `${rsa.pem}${p256.pem}`, JWT_ALGORITHMS: "RS256,ES256,HS256" }),
      "JWT_ALGORITHMS",
      /HS256 cannot be verified with any/,
    );
  });

  it("describes the keys it holds by kind and count, never the keys", () => {
    const { keys } = createTokenVerifier(loadConfig({ JWT_PUBLIC_KEY: `${rsa.pem}${nextRsa.pem}${p256.pem}` }));
    expect(keys).toEqual({ source: "JWT_PUBLIC_KEY", count: { "RSA public key": 2, "EC prime256v1 public key": 1 } });
    const secrets = createTokenVerifier(loadConfig({ JWT_SECRET: CURRENT, JWT_SECRET_PREVIOUS: PREVIOUS })).keys;
    expect(secrets).toEqual({ source: "JWT_SECRET, JWT_SECRET_PREVIOUS", count: { secret: 2 } });
  });
});

describe("key rotation: how keys are tried", () => {
  const secretKey = (secret: string): KeyObject => createSecretKey(Buffer.from(secret));

  it("checks a refused token against every key, whatever its header names, in the configured order", () => {
    // A spy that calls through: it counts jsonwebtoken's real verifications, it replaces nothing.
    const verify = vi.spyOn(jwt, "verify");
    const keys = [secretKey(CURRENT), secretKey(PREVIOUS), secretKey(`${PREVIOUS}2`)];
    const verifier = new JwtVerifier({ keys });
    const forged = jwt.sign(idpClaims(), "an-attacker's-own-secret-of-32-chars!", {
      algorithm: "HS256",
      header: { alg: "HS256", kid: "2" },
    });
    expect(() => verifier.verify(forged)).toThrow(/signature is invalid/);
    expect(
      verify.mock.calls.map(([, key]) => keys.findIndex((candidate) => candidate.equals(key as KeyObject))),
    ).toEqual([0, 1, 2]);
  });

  it("gives the same answer whatever the order of the keys", () => {
    const tokens = [
      signed(rsa, "RS256"),
      signed(p256, "ES256"),
      signed(nextRsa, "RS256"),
      hmacSignedToken(rsa.pem, idpClaims()),
    ];
    const outcome = (keys: KeyObject[]) =>
      tokens.map((token) => {
        try {
          return new JwtVerifier({ keys }).verify(token).sub;
        } catch (error) {
          return (error as Error).message;
        }
      });
    const forward = outcome([rsa.publicKey, p256.publicKey]);
    expect(forward).toEqual(["alice", "alice", "token signature is invalid", "token algorithm is not accepted"]);
    expect(outcome([p256.publicKey, rsa.publicKey])).toEqual(forward);
  });
});
