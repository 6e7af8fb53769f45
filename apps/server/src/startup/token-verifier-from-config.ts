import { KeySetupError } from "../auth/auth-errors.js";
import { generateDevelopmentSecret } from "../auth/development-credentials.js";
import { JwksVerifier } from "../auth/jwks-verifier.js";
import { JwtVerifier, type TokenVerifier } from "../auth/jwt-verifier.js";
import { loadPublicKey } from "../auth/public-key.js";
import { type Config, ConfigError } from "../config.js";

type AuthConfig = Pick<
  Config,
  | "JWT_SECRET"
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
}

/**
 * The verifier for the configured key source: an HS256 secret, a PEM public key, or a JWKS URL (loadConfig
 * has already made sure there is at most one). Fails with a ConfigError naming the variable.
 */
export function createTokenVerifier(config: AuthConfig): ConfiguredVerifier {
  const claims = { issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE };
  if (config.JWT_JWKS_URI !== undefined) {
    if (config.JWT_ALGORITHMS?.some((algorithm) => algorithm.startsWith("HS"))) {
      throw new ConfigError("invalid configuration: JWT_ALGORITHMS: HMAC algorithms cannot be used with JWT_JWKS_URI");
    }
    const verifier = new JwksVerifier({
      ...claims,
      jwksUri: config.JWT_JWKS_URI,
      algorithms: config.JWT_ALGORITHMS,
      requestsPerMinute: config.JWT_JWKS_REQUESTS_PER_MINUTE,
      cacheMaxAgeMs: config.JWT_JWKS_CACHE_MAX_AGE_SECONDS * 1000,
    });
    return { verifier };
  }
  const usesPublicKey = config.JWT_PUBLIC_KEY !== undefined || config.JWT_PUBLIC_KEY_FILE !== undefined;
  const developmentSecret =
    usesPublicKey || config.JWT_SECRET !== undefined ? undefined : generateDevelopmentSecret();
  const keySource = usesPublicKey
    ? { key: publicKeyFrom(config) }
    : { secret: config.JWT_SECRET ?? (developmentSecret as string) };
  let verifier: JwtVerifier;
  try {
    verifier = new JwtVerifier({ ...claims, ...keySource, algorithms: config.JWT_ALGORITHMS });
  } catch (error) {
    // The key was checked above, so what the verifier refuses is the configured algorithm list.
    throw new ConfigError(`invalid configuration: JWT_ALGORITHMS: ${(error as Error).message}`);
  }
  return developmentSecret === undefined ? { verifier } : { verifier, developmentSecret };
}

/** The configured PEM public key; auth's KeySetupError becomes the ConfigError that stops the start. */
function publicKeyFrom(config: AuthConfig) {
  try {
    return loadPublicKey(config);
  } catch (error) {
    if (error instanceof KeySetupError) throw new ConfigError(`invalid configuration: ${error.variable}: ${error.message}`);
    throw error;
  }
}
