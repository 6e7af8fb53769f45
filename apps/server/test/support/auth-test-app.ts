import { createHmac, generateKeyPairSync, type KeyObject } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { loadConfig } from "../../src/config.js";
import { startPlantStore } from "../../src/startup/start-plant-store.js";
import { querySqliteFile } from "./sqlite-file.js";

/** The server as main.ts starts it from these environment variables, on a real SQLite file in a temp folder. */
export async function startConfiguredApp(env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-auth-"));
  const databaseFile = join(dir, "plants.db");
  const running = await startPlantStore(
    loadConfig({ HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "silent", VALIDATE_RESPONSES: "true", DATABASE_URL: databaseFile, ...env }),
  );
  return {
    app: running.app,
    /** How many plants the database file holds, read through a separate connection. */
    rowCount(): number {
      return querySqliteFile(databaseFile, (db) => Number(db.prepare("SELECT count(*) AS n FROM plants").get()?.n));
    },
    async close() {
      await running.shutdown("test finished").catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type ConfiguredApp = Awaited<ReturnType<typeof startConfiguredApp>>;

/** The identity provider the PEM and JWKS suites configure, and the claims of a valid token from it. */
export const IDP_ISSUER = "https://idp.example";
export const IDP_AUDIENCE = "plant-store";
export const idpClaims = () => ({ iss: IDP_ISSUER, aud: IDP_AUDIENCE, sub: "alice", exp: nowSeconds() + 60 });

/** startConfiguredApp over `base` for a test file: each app started is closed after its test. */
export function configuredApps(base: Record<string, string>): (env?: Record<string, string>) => Promise<ConfiguredApp> {
  const started: ConfiguredApp[] = [];
  afterEach(async () => {
    for (const app of started.splice(0)) await app.close();
  });
  return async (env = {}) => {
    const app = await startConfiguredApp({ ...base, ...env });
    started.push(app);
    return app;
  };
}

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
