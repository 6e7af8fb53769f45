import { createSecretKey, type KeyObject } from "node:crypto";
import { describeKey } from "../auth/algorithms.js";
import { generateDevelopmentSecret } from "../auth/development-credentials.js";
import { JwksVerifier } from "../auth/jwks-verifier.js";
import { JwtVerifier } from "../auth/jwt-verifier.js";
import { loadPublicKeys, type PublicKeySource } from "../auth/public-key.js";
import type { TokenVerifier } from "../auth/token-verifier.js";
import type { Config } from "../config.js";
import { ConfigError, KeySetupError } from "../operator-errors.js";

type AuthConfig = Pick<
  Config,
  | "JWT_SECRET"
  | "JWT_SECRET_PREVIOUS"
  | "JWT_PUBLIC_KEY"
  | "JWT_PUBLIC_KEY_FILE"
  | "JWT_JWKS_URI"
  | "JWT_JWKS_REQUESTS_PER_MINUTE"
  | "JWT_JWKS_CACHE_MAX_AGE_SECONDS"
  | "JWT_ALGORITHMS"
  | "JWT_ISSUER"
  | "JWT_AUDIENCE"
>;

export interface ConfiguredVerifier {
  verifier: TokenVerifier;
  /** Set when no key source was configured and this development run made up its own HS256 secret. */
  developmentSecret?: string;
  /** What startup logs about the keys, never the keys: the source and how many keys of each kind it holds. */
  keys: { source: string; count?: Record<string, number> };
}

/**
 * The verifier for the configured key source: HS256 secrets (JWT_SECRET, and JWT_SECRET_PREVIOUS while rotating),
 * PEM public keys, or a JWKS URL (loadConfig has already made sure there is at most one source). Fails with a
 * ConfigError naming the variable.
 */
export function createTokenVerifier(config: AuthConfig): ConfiguredVerifier {
  const claims = { issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE };
  if (config.JWT_JWKS_URI !== undefined) {
    if (config.JWT_ALGORITHMS?.some((algorithm) => algorithm.startsWith("HS"))) {
      throw new ConfigError("JWT_ALGORITHMS", "HMAC algorithms cannot be used with JWT_JWKS_URI");
    }
    const verifier = new JwksVerifier({
      ...claims,
      jwksUri: config.JWT_JWKS_URI,
      algorithms: config.JWT_ALGORITHMS,
      requestsPerMinute: config.JWT_JWKS_REQUESTS_PER_MINUTE,
      cacheMaxAgeMs: config.JWT_JWKS_CACHE_MAX_AGE_SECONDS * 1000,
    });
    return { verifier, keys: { source: "JWT_JWKS_URI" } };
  }
  const { name, keys, developmentSecret } = fixedKeys(config);
  let verifier: JwtVerifier;
  try {
    verifier = new JwtVerifier({ ...claims, keys, algorithms: config.JWT_ALGORITHMS });
  } catch (error) {
    // The keys were checked above, so what the verifier refuses is the configured algorithm list.
    throw new ConfigError("JWT_ALGORITHMS", (error as Error).message);
  }
  const count: Record<string, number> = {};
  for (const key of keys) count[describeKey(key)] = (count[describeKey(key)] ?? 0) + 1;
  return { verifier, developmentSecret, keys: { source: name, count } };
}

/** The fixed keys configured (PEM public keys, or HS256 secrets), or a generated development secret when none is. */
function fixedKeys(config: AuthConfig): { name: string; keys: KeyObject[]; developmentSecret?: string } {
  if (config.JWT_PUBLIC_KEY_FILE !== undefined) {
    return {
      name: "JWT_PUBLIC_KEY_FILE",
      keys: publicKeysFrom("JWT_PUBLIC_KEY_FILE", { file: config.JWT_PUBLIC_KEY_FILE }),
    };
  }
  if (config.JWT_PUBLIC_KEY !== undefined) {
    return { name: "JWT_PUBLIC_KEY", keys: publicKeysFrom("JWT_PUBLIC_KEY", { text: config.JWT_PUBLIC_KEY }) };
  }
  if (config.JWT_SECRET !== undefined) {
    if (config.JWT_SECRET_PREVIOUS === undefined) return { name: "JWT_SECRET", keys: [secretKey(config.JWT_SECRET)] };
    return {
      name: "JWT_SECRET, JWT_SECRET_PREVIOUS",
      keys: [config.JWT_SECRET, config.JWT_SECRET_PREVIOUS].map(secretKey),
    };
  }
  const developmentSecret = generateDevelopmentSecret();
  return { name: "generated development secret", keys: [secretKey(developmentSecret)], developmentSecret };
}

function secretKey(secret: string): KeyObject {
  return createSecretKey(Buffer.from(secret, "utf8"));
}

/** The PEM public keys `setting` gives; auth's KeySetupError becomes the ConfigError, naming it, that stops the start. */
function publicKeysFrom(setting: string, source: PublicKeySource): KeyObject[] {
  try {
    return loadPublicKeys(source);
  } catch (error) {
    if (error instanceof KeySetupError) throw new ConfigError(setting, error.message);
    throw error;
  }
}
