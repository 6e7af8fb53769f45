import type { KeyObject } from "node:crypto";
import jwt from "jsonwebtoken";
import { allowedAlgorithmsForKeys, type SupportedAlgorithm } from "./algorithms.js";
import { InvalidTokenError } from "./auth-errors.js";
import type { TokenVerifier } from "./token-verifier.js";

/** Checks every verifier applies besides the signature. */
export interface ClaimOptions {
  issuer?: string | undefined;
  audience?: string | undefined;
  /** Seconds of clock skew allowed for exp and nbf. */
  clockToleranceSeconds?: number;
}

// `complete` hands back the header jsonwebtoken has already decoded, so `crit` is checked without decoding it twice.
export type VerifyOptions = jwt.VerifyOptions & { complete: true; algorithms: SupportedAlgorithm[] };

/** jsonwebtoken options for the given algorithms and claim checks. */
export function verifyOptions(algorithms: SupportedAlgorithm[], claims: ClaimOptions): VerifyOptions {
  return {
    algorithms,
    complete: true,
    clockTolerance: claims.clockToleranceSeconds ?? 5,
    ...(claims.issuer !== undefined && { issuer: claims.issuer }),
    ...(claims.audience !== undefined && { audience: claims.audience }),
  };
}

const SIGNATURE_INVALID = "token signature is invalid";
/** The refusal of a token whose header lists critical extensions (`crit`, RFC 7515 section 4.1.11). */
export const CRITICAL_EXTENSION_REFUSED =
  "token header lists a critical extension (crit) the server does not understand";
const ALGORITHM_NOT_ACCEPTED = "token algorithm is not accepted";

function reasonFor(error: unknown): string {
  if (error instanceof jwt.TokenExpiredError) return "token has expired";
  if (error instanceof jwt.NotBeforeError) return "token is not valid yet";
  const message = error instanceof Error ? error.message : "";
  if (message.startsWith("jwt audience invalid")) return "token audience is not accepted";
  if (message.startsWith("jwt issuer invalid")) return "token issuer is not accepted";
  if (message === "invalid signature") return SIGNATURE_INVALID;
  if (message === "invalid algorithm" || message === "jwt signature is required") return ALGORITHM_NOT_ACCEPTED;
  return "token is malformed";
}

/**
 * Verifies a token against one key: algorithm allowlisted, exp required, iss/aud checked when configured, and no
 * `crit` header. jsonwebtoken ignores `crit`; RFC 7515 section 4.1.11 requires refusing a JWS whose `crit` lists an
 * extension the recipient does not understand, and this server understands none, so any `crit` is refused.
 */
export function verifyWithKey(token: string, key: KeyObject, options: VerifyOptions): jwt.JwtPayload {
  let verified: jwt.Jwt;
  try {
    verified = jwt.verify(token, key, options);
  } catch (error) {
    throw new InvalidTokenError(reasonFor(error));
  }
  if (verified.header.crit !== undefined) throw new InvalidTokenError(CRITICAL_EXTENSION_REFUSED);
  const { payload } = verified;
  if (typeof payload === "string") throw new InvalidTokenError("token is malformed");
  if (typeof payload.exp !== "number") throw new InvalidTokenError("token has no exp claim");
  return payload;
}

export interface JwtVerifierOptions extends ClaimOptions {
  /**
   * The keys of one source, secret or public KeyObjects (JWT_SECRET then JWT_SECRET_PREVIOUS, or every PEM key in
   * JWT_PUBLIC_KEY): a token verifies when any of them does, each key with the algorithms its type allows.
   */
  keys: readonly KeyObject[];
  /** Replaces the key type's default algorithms (JWT_ALGORITHMS); each must suit a key. */
  algorithms?: readonly SupportedAlgorithm[] | undefined;
}

/**
 * Verifies bearer tokens with fixed keys (HS256 secrets or PEM public keys), synchronously. With several
 * keys (a rotation), every key is tried in the configured order with its own allow-list, whatever the
 * token's header says: the header's `alg` cannot pick a key, only be refused by it, so an HMAC token is
 * never checked against a public key. A refused token costs every key (HMAC signatures are compared in
 * constant time by jws); only a token whose signature matched a key stops early.
 */
export class JwtVerifier implements TokenVerifier {
  // jsonwebtoken verifies ~40x faster with a KeyObject made once than with the secret as a string.
  readonly #keys: readonly { key: KeyObject; options: VerifyOptions }[];

  constructor(options: JwtVerifierOptions) {
    const { keys } = options;
    if (keys.length === 0) throw new Error("no key to verify tokens with");
    const algorithms = allowedAlgorithmsForKeys(keys, options.algorithms);
    this.#keys = keys.map((key, index) => ({ key, options: verifyOptions(algorithms[index]!, options) }));
  }

  /** The algorithms this verifier accepts (with several keys, those of any key). */
  get algorithms(): readonly SupportedAlgorithm[] {
    return [...new Set(this.#keys.flatMap(({ options }) => options.algorithms))];
  }

  /** The token's claims, or an InvalidTokenError saying why it is refused. */
  verify(token: string): jwt.JwtPayload {
    if (this.#keys.length === 1) return verifyWithKey(token, this.#keys[0]!.key, this.#keys[0]!.options);
    let refusal: InvalidTokenError | undefined;
    for (const { key, options } of this.#keys) {
      try {
        return verifyWithKey(token, key, options);
      } catch (error) {
        // jsonwebtoken checks the algorithm, then the signature, then the claims: any other reason (expired,
        // audience, malformed) is this key's final word, as its signature matched or the token cannot be read.
        if (!(error instanceof InvalidTokenError)) throw error;
        if (error.message !== SIGNATURE_INVALID && error.message !== ALGORITHM_NOT_ACCEPTED) throw error;
        // "Signature invalid" from a key that allows the algorithm says more than another key's "not accepted".
        if (refusal === undefined || error.message === SIGNATURE_INVALID) refusal = error;
      }
    }
    throw refusal!;
  }
}
