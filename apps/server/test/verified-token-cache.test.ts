import { createSecretKey } from "node:crypto";
import type { JwtPayload } from "jsonwebtoken";
import { describe, expect, it } from "vitest";
import { InvalidTokenError } from "../src/auth/auth-errors.js";
import { JwtVerifier } from "../src/auth/jwt-verifier.js";
import { signToken } from "../src/auth/sign-token.js";
import { VERIFIED_TOKEN_MAX_AGE_MS, VerifiedTokenCache } from "../src/auth/verified-token-cache.js";
import { TEST_SECRET } from "./support/test-server.js";

/** The real verifier, counting how often it is asked. */
function countingVerifier() {
  const verifier = new JwtVerifier({ keys: [createSecretKey(Buffer.from(TEST_SECRET, "utf8"))] });
  const counter = {
    calls: 0,
    verify(token: string) {
      counter.calls++;
      return verifier.verify(token);
    },
  };
  return counter;
}

/** The cache's answer for a synchronous verifier, which is never a promise. */
function verifySync(cache: VerifiedTokenCache<JwtPayload>, token: string): JwtPayload {
  const claims = cache.verify(token);
  if (claims instanceof Promise) throw new Error("a synchronous verifier gave a promise");
  return claims;
}

function clock(startMs: number) {
  const state = { nowMs: startMs, now: () => state.nowMs };
  return state;
}

describe("VerifiedTokenCache", () => {
  it("remembers what an asynchronous (JWKS) verifier resolved to and answers it synchronously next time", async () => {
    const verifier = new JwtVerifier({ keys: [createSecretKey(Buffer.from(TEST_SECRET, "utf8"))] });
    let calls = 0;
    const cache = new VerifiedTokenCache<JwtPayload>({
      verify: async (token) => {
        calls++;
        return verifier.verify(token);
      },
    });
    const token = signToken({ secret: TEST_SECRET, subject: "bob" });
    const first = await cache.verify(token);
    expect(first.sub).toBe("bob");
    expect(verifySync(cache, token)).toBe(first);
    expect(calls).toBe(1);
  });

  it("verifies a token once and answers the same token again from the cache with the same claims", () => {
    const verifier = countingVerifier();
    const cache = new VerifiedTokenCache(verifier);
    const token = signToken({ secret: TEST_SECRET, subject: "alice" });

    const first = verifySync(cache, token);
    const second = verifySync(cache, token);

    expect(second).toBe(first);
    expect(first.sub).toBe("alice");
    expect(verifier.calls).toBe(1);
  });

  it("never answers from the cache at or after the token's exp: the verifier judges it again", () => {
    const verifier = countingVerifier();
    const time = clock(Date.now());
    const cache = new VerifiedTokenCache(verifier, { now: time.now, maxAgeMs: 24 * 3600_000 });
    const token = signToken({ secret: TEST_SECRET, expiresInSeconds: 600 });
    const { exp } = verifySync(cache, token);

    time.nowMs = exp! * 1000 - 1;
    cache.verify(token);
    expect(verifier.calls).toBe(1);
    time.nowMs = exp! * 1000;
    cache.verify(token);
    expect(verifier.calls).toBe(2);
  });

  it("reuses a verification for at most maxAgeMs even when exp is later", () => {
    const verifier = countingVerifier();
    const time = clock(Date.now());
    const cache = new VerifiedTokenCache(verifier, { now: time.now, maxAgeMs: 1000 });
    const token = signToken({ secret: TEST_SECRET, expiresInSeconds: 3600 });
    cache.verify(token);

    time.nowMs += 1000;
    cache.verify(token);

    expect(verifier.calls).toBe(2);
  });

  it("accepts a token whose key was withdrawn for at most 60 s after it last verified it, then refuses it", () => {
    const withdrawn = "a-key-the-identity-provider-withdraws-32";
    const kept = "a-key-the-identity-provider-keeps-for-now";
    const key = (secret: string) => createSecretKey(Buffer.from(secret));
    // The process's keys change under it, as a JWKS's do; the verifier of the moment judges every miss.
    let keys = new JwtVerifier({ keys: [key(kept), key(withdrawn)] });
    const time = clock(Date.now());
    const cache = new VerifiedTokenCache({ verify: (token: string) => keys.verify(token) }, { now: time.now });
    const token = signToken({ secret: withdrawn, expiresInSeconds: 3600 });
    verifySync(cache, token);

    keys = new JwtVerifier({ keys: [key(kept)] });
    time.nowMs += VERIFIED_TOKEN_MAX_AGE_MS - 1;
    expect(verifySync(cache, token).sub).toBe("plant-store-dev");
    time.nowMs += 1;
    expect(() => cache.verify(token)).toThrow(InvalidTokenError);
    expect(VERIFIED_TOKEN_MAX_AGE_MS).toBe(60_000);
  });

  it("does not remember refused tokens: each attempt is verified and refused again", () => {
    const verifier = countingVerifier();
    const cache = new VerifiedTokenCache(verifier);
    const forged = signToken({ secret: "another-secret-that-is-at-least-32-characters" });

    expect(() => cache.verify(forged)).toThrow(InvalidTokenError);
    expect(() => cache.verify(forged)).toThrow(InvalidTokenError);
    expect(verifier.calls).toBe(2);
    expect(cache.size).toBe(0);
  });

  it("holds at most maxEntries tokens, dropping the oldest", () => {
    const verifier = countingVerifier();
    const cache = new VerifiedTokenCache(verifier, { maxEntries: 2 });
    const [a, b, c] = ["a", "b", "c"].map((subject) => signToken({ secret: TEST_SECRET, subject }));

    for (const token of [a!, b!, c!]) cache.verify(token);
    expect(cache.size).toBe(2);
    cache.verify(c!);
    cache.verify(b!);
    expect(verifier.calls).toBe(3);
    cache.verify(a!);
    expect(verifier.calls).toBe(4);
  });

  it("never caches claims without a numeric exp, whatever verifier it wraps", () => {
    let calls = 0;
    const cache = new VerifiedTokenCache({
      verify: () => {
        calls++;
        return { sub: "no-exp" } as { sub: string; exp?: number };
      },
    });

    cache.verify("opaque");
    cache.verify("opaque");

    expect(calls).toBe(2);
    expect(cache.size).toBe(0);
  });
});
