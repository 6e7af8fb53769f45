import { createHmac, generateKeyPairSync, type KeyObject } from "node:crypto";
import { signToken, type SignTokenOptions } from "../../src/auth/sign-token.js";

/** The HS256 secret the test servers verify with unless a test configures another key source. */
export const TEST_SECRET = "test-secret-that-is-at-least-32-characters-long";

/** A bearer token signed with TEST_SECRET, valid for an hour. */
export const testToken = (options: Omit<SignTokenOptions, "secret"> = {}) =>
  signToken({ secret: TEST_SECRET, ...options });

/** The identity provider the PEM and JWKS suites configure, and the claims of a valid token from it. */
export const IDP_ISSUER = "https://idp.example";
export const IDP_AUDIENCE = "plant-store";
export const idpClaims = () => ({ iss: IDP_ISSUER, aud: IDP_AUDIENCE, sub: "alice", exp: nowSeconds() + 60 });

export type KeyKind = "rsa" | "rsa-pss" | "P-256" | "P-384" | "ed25519";

/** A fresh key pair of the given kind with its public half as PEM and as a JWK carrying `kid`. */
export function generateSigningKey(kind: KeyKind, kid = `key-${Math.random().toString(36).slice(2)}`) {
  const pair =
    kind === "rsa"
      ? generateKeyPairSync("rsa", { modulusLength: 2048 })
      : kind === "rsa-pss"
        ? // jsonwebtoken signs PS256 only with an RSA-PSS key restricted to SHA-256.
          generateKeyPairSync("rsa-pss", { modulusLength: 2048, hashAlgorithm: "sha256", mgf1HashAlgorithm: "sha256" })
        : kind === "ed25519"
          ? generateKeyPairSync("ed25519")
          : generateKeyPairSync("ec", { namedCurve: kind });
  const publicKey: KeyObject = pair.publicKey;
  return {
    kid,
    privateKey: pair.privateKey,
    publicKey,
    pem: publicKey.export({ type: "spki", format: "pem" }).toString(),
    // A getter: Node cannot write an RSA-PSS key as a JWK, and those tests only need the PEM.
    get jwk() {
      return { ...publicKey.export({ format: "jwk" }), kid, use: "sig" } as Record<string, string>;
    },
  };
}

export type SigningKeyPair = ReturnType<typeof generateSigningKey>;

const base64url = (value: object | Buffer) =>
  (Buffer.isBuffer(value) ? value : Buffer.from(JSON.stringify(value))).toString("base64url");

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** An HS256 token whose HMAC secret is `secret` verbatim: the algorithm-confusion attack when it is a public key. */
export function hmacSignedToken(secret: string, payload: object, header: object = {}): string {
  const signingInput = `${base64url({ alg: "HS256", typ: "JWT", ...header })}.${base64url(payload)}`;
  return `${signingInput}.${createHmac("sha256", secret).update(signingInput).digest("base64url")}`;
}

/** An unsigned token (`alg: none`) with an empty signature. */
export function unsignedToken(payload: object, header: object = {}): string {
  return `${base64url({ alg: "none", typ: "JWT", ...header })}.${base64url(payload)}.`;
}
