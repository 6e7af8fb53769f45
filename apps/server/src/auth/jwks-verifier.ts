import { createPublicKey, type KeyObject } from "node:crypto";
import jwt from "jsonwebtoken";
import type jwksRsa from "jwks-rsa";
import { algorithmsForKey, JWKS_DEFAULT_ALGORITHMS, type SupportedAlgorithm } from "./algorithms.js";
import { IdentityProviderUnavailableError, InvalidTokenError } from "./auth-errors.js";
import { type ClaimOptions, type VerifyOptions, verifyOptions, verifyWithKey } from "./jwt-verifier.js";
import { KeySetFetchGate, KeySetFetchLimitError } from "./key-set-fetch-gate.js";
import type { TokenVerifier } from "./token-verifier.js";

export interface JwksVerifierOptions extends ClaimOptions {
  jwksUri: string;
  /** Accepted algorithms (JWT_ALGORITHMS); each key further narrows them to its type and its JWK `alg`. */
  algorithms?: readonly SupportedAlgorithm[] | undefined;
  /**
   * Most JWKS fetches started in any minute; further lookups of an unknown kid are refused, without a fetch, until
   * the oldest of them is a minute old. One fetch runs at a time; lookups that arrive meanwhile share its result.
   */
  requestsPerMinute: number;
  /** How long a fetched key is trusted before it is fetched again. */
  cacheMaxAgeMs: number;
  /** How long one JWKS fetch may take. */
  timeoutMs?: number;
}

/**
 * Verifies tokens with the keys of a JSON Web Key Set, found by the token's `kid`. jwks-rsa caches keys
 * per kid and fetches the set again for a kid it has not seen (that is how rotated keys are picked up); a
 * KeySetFetchGate under its cache runs one fetch at a time and limits how many start per minute, so tokens with
 * made-up kids cannot hammer the identity provider.
 */
export class JwksVerifier implements TokenVerifier {
  // jwks-rsa and what it brings (~3 MiB resident) load only in a server configured with a JWKS URL: the
  // import starts with the verifier, and the first verification waits for it.
  readonly #jwks: Promise<{ library: typeof jwksRsa; client: jwksRsa.JwksClient }>;
  readonly #algorithms: readonly SupportedAlgorithm[];
  readonly #claims: ClaimOptions;
  // jwks-rsa hands back the same SigningKey while it is cached: parse its PEM and derive options once.
  readonly #prepared = new WeakMap<jwksRsa.SigningKey, { key: KeyObject; options: VerifyOptions }>();

  constructor(options: JwksVerifierOptions) {
    this.#algorithms = options.algorithms ?? JWKS_DEFAULT_ALGORITHMS;
    this.#claims = options;
    const gate = new KeySetFetchGate<jwksRsa.SigningKey[]>(options.requestsPerMinute);
    this.#jwks = import("jwks-rsa").then(({ default: library }) => {
      // getSigningKey (behind jwks-rsa's per-kid cache) fetches through getSigningKeys, the client's public method
      // for one fetch of the set: gating it gates every fetch, and lookups sharing one fetch spend one of the limit.
      // Should jwks-rsa stop fetching through it, test/auth-jwks-burst-process.test.ts sees the fetches overlap.
      class GatedJwksClient extends library.JwksClient {
        override getSigningKeys(): Promise<jwksRsa.SigningKey[]> {
          return gate.fetch(() => super.getSigningKeys());
        }
      }
      const client = new GatedJwksClient({
        jwksUri: options.jwksUri,
        cache: true,
        cacheMaxAge: options.cacheMaxAgeMs,
        cacheMaxEntries: 16,
        rateLimit: false,
        timeout: options.timeoutMs ?? 5_000,
      });
      return { library, client };
    });
  }

  /** The token's claims, or an InvalidTokenError; IdentityProviderUnavailableError when the JWKS URL is unreachable. */
  async verify(token: string): Promise<jwt.JwtPayload> {
    const header = jwt.decode(token, { complete: true })?.header;
    // The header is not yet verified: a kid that is not a string must not reach the key cache.
    if (header === undefined || (header.kid !== undefined && typeof header.kid !== "string")) {
      throw new InvalidTokenError("token is malformed");
    }
    // Refuse `none`, HMAC and anything else not allowed before the kid can cause a fetch.
    if (!(this.#algorithms as readonly string[]).includes(header.alg)) {
      throw new InvalidTokenError("token algorithm is not accepted");
    }
    const signingKey = await this.#signingKey(header.kid);
    const { key, options } = this.#prepare(signingKey);
    return verifyWithKey(token, key, options);
  }

  async #signingKey(kid: string | undefined): Promise<jwksRsa.SigningKey> {
    const { library, client } = await this.#jwks;
    try {
      return await client.getSigningKey(kid);
    } catch (error) {
      if (error instanceof library.SigningKeyNotFoundError || error instanceof KeySetFetchLimitError) {
        throw new InvalidTokenError("token signing key is unknown");
      }
      // The token may well be valid: say the outage is ours and passing, so clients retry instead of failing.
      throw new IdentityProviderUnavailableError(error);
    }
  }

  #prepare(signingKey: jwksRsa.SigningKey): { key: KeyObject; options: VerifyOptions } {
    let prepared = this.#prepared.get(signingKey);
    if (prepared === undefined) {
      const key = createPublicKey(signingKey.getPublicKey());
      const { compatible } = algorithmsForKey(key);
      // A JWK that names its `alg` is used with that algorithm only (RFC 7517 section 4.4).
      const declared: string | undefined = signingKey.alg;
      const algorithms = this.#algorithms.filter(
        (algorithm) => compatible.includes(algorithm) && (declared === undefined || declared === algorithm),
      );
      prepared = { key, options: verifyOptions(algorithms, this.#claims) };
      this.#prepared.set(signingKey, prepared);
    }
    return prepared;
  }
}
