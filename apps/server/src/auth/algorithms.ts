import type { KeyObject } from "node:crypto";
import type { Algorithm } from "jsonwebtoken";

/** Every signing algorithm the server can be configured to accept; `none` is never among them. */
export const SUPPORTED_ALGORITHMS = [
  "HS256",
  "HS384",
  "HS512",
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
] as const satisfies readonly Algorithm[];

export type SupportedAlgorithm = (typeof SUPPORTED_ALGORITHMS)[number];

/** What a JWKS accepts when JWT_ALGORITHMS is not set: the common asymmetric ones, never HMAC. */
export const JWKS_DEFAULT_ALGORITHMS: readonly SupportedAlgorithm[] = ["RS256", "PS256", "ES256", "ES384", "ES512"];

const EC_ALGORITHM_BY_CURVE: Record<string, SupportedAlgorithm> = {
  prime256v1: "ES256",
  secp384r1: "ES384",
  secp521r1: "ES512",
};

/**
 * The algorithms a key can verify, and the ones accepted by default. The key type decides: an HMAC
 * algorithm never pairs with a public key (the algorithm-confusion attack), and an EC key only with its curve.
 */
export function algorithmsForKey(key: KeyObject): {
  compatible: readonly SupportedAlgorithm[];
  defaults: readonly SupportedAlgorithm[];
} {
  if (key.type === "secret") return { compatible: ["HS256", "HS384", "HS512"], defaults: ["HS256"] };
  switch (key.asymmetricKeyType) {
    case "rsa":
      return {
        compatible: ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"],
        defaults: ["RS256", "PS256"],
      };
    case "rsa-pss":
      return { compatible: ["PS256", "PS384", "PS512"], defaults: ["PS256"] };
    case "ec": {
      const algorithm = EC_ALGORITHM_BY_CURVE[key.asymmetricKeyDetails?.namedCurve ?? ""];
      return algorithm ? { compatible: [algorithm], defaults: [algorithm] } : { compatible: [], defaults: [] };
    }
    default:
      return { compatible: [], defaults: [] };
  }
}

/**
 * The algorithms a fixed key (secret or PEM) accepts: the configured ones, else the key type's defaults.
 * Throws when a configured algorithm cannot be verified with this key, so a mistake fails at start.
 */
export function allowedAlgorithmsForKey(
  key: KeyObject,
  configured: readonly SupportedAlgorithm[] | undefined,
): SupportedAlgorithm[] {
  const { compatible, defaults } = algorithmsForKey(key);
  if (compatible.length === 0) {
    throw new Error(
      `the key type ${key.asymmetricKeyType ?? key.type} is not supported (use RSA, RSA-PSS or EC P-256/384/521)`,
    );
  }
  if (configured === undefined) return [...defaults];
  const unusable = configured.filter((algorithm) => !compatible.includes(algorithm));
  if (unusable.length > 0) {
    throw new Error(
      `${unusable.join(", ")} cannot be verified with this ${describeKey(key)}; it allows ${compatible.join(", ")}`,
    );
  }
  return [...configured];
}

/**
 * The algorithms each of several fixed keys accepts (rotation: JWT_SECRET_PREVIOUS, several PEM keys). Without
 * JWT_ALGORITHMS each key gets its type's defaults; with it, each key gets the configured ones its type can
 * verify. Throws when a configured algorithm suits no key, or a key suits none of them (it could verify nothing).
 */
export function allowedAlgorithmsForKeys(
  keys: readonly KeyObject[],
  configured: readonly SupportedAlgorithm[] | undefined,
): SupportedAlgorithm[][] {
  if (keys.length === 1) return [allowedAlgorithmsForKey(keys[0]!, configured)];
  const perKey = keys.map((key) => {
    const { compatible } = algorithmsForKey(key);
    const allowed = allowedAlgorithmsForKey(key, undefined);
    return configured === undefined ? allowed : configured.filter((algorithm) => compatible.includes(algorithm));
  });
  if (configured !== undefined) {
    const unusable = configured.filter((algorithm) => !perKey.some((allowed) => allowed.includes(algorithm)));
    if (unusable.length > 0)
      throw new Error(`${unusable.join(", ")} cannot be verified with any of the ${keys.length} keys`);
    const idle = perKey.findIndex((allowed) => allowed.length === 0);
    if (idle !== -1) {
      throw new Error(
        `key ${idle + 1} of ${keys.length} (${describeKey(keys[idle]!)}) can verify none of ${configured.join(", ")}`,
      );
    }
  }
  return perKey;
}

/** A key's kind as logs and errors name it, e.g. "secret", "RSA public key", "EC prime256v1 public key"; never the key. */
export function describeKey(key: KeyObject): string {
  if (key.type === "secret") return "secret";
  const curve = key.asymmetricKeyDetails?.namedCurve;
  return `${key.asymmetricKeyType?.toUpperCase()}${curve ? ` ${curve}` : ""} public key`;
}
