import { describe, expect, it } from "vitest";
import { createTokenVerifier } from "../src/startup/token-verifier-from-config.js";
import { JwksVerifier } from "../src/auth/jwks-verifier.js";
import { JwtVerifier } from "../src/auth/jwt-verifier.js";
import { loadConfig } from "../src/config.js";
import { generateSigningKey } from "./support/tokens.js";
import { expectConfigError } from "./support/config-error.js";

const SECRET = "a-secret-that-is-at-least-32-characters!";
const rsa = generateSigningKey("rsa");

/** loadConfig then createTokenVerifier, as main.ts does. */
const configure = (env: Record<string, string>) => createTokenVerifier(loadConfig(env));

const expectRefused = (env: Record<string, string>, variable: string, detail: RegExp) =>
  expectConfigError(() => configure(env), variable, detail);

describe("identity provider configuration", () => {
  it.each([
    ["JWT_SECRET", { JWT_SECRET: SECRET }, JwtVerifier],
    ["JWT_PUBLIC_KEY", { JWT_PUBLIC_KEY: rsa.pem }, JwtVerifier],
    ["JWT_JWKS_URI", { JWT_JWKS_URI: "https://idp.example/.well-known/jwks.json" }, JwksVerifier],
  ] as const)("in production %s alone is a complete JWT configuration", (_name, env, kind) => {
    const configured = configure({ NODE_ENV: "production", ...env });
    expect(configured.verifier).toBeInstanceOf(kind);
    expect(configured.developmentSecret).toBeUndefined();
  });

  it("without any key source in development generates a secret for the run", () => {
    const configured = configure({});
    expect(configured.developmentSecret).toMatch(/^[\w-]{43}$/);
    expect((configured.verifier as JwtVerifier).algorithms).toEqual(["HS256"]);
  });

  it("in production without any key source names every way to configure one", () => {
    expectRefused({ NODE_ENV: "production" }, "JWT_SECRET", /JWT_PUBLIC_KEY, JWT_PUBLIC_KEY_FILE, JWT_JWKS_URI/);
  });

  it("refuses two key sources at once", () => {
    expectRefused(
      { JWT_SECRET: SECRET, JWT_PUBLIC_KEY: rsa.pem },
      "JWT_PUBLIC_KEY",
      /cannot be combined with JWT_SECRET/,
    );
    expectRefused(
      { JWT_PUBLIC_KEY: rsa.pem, JWT_JWKS_URI: "https://idp.example/jwks" },
      "JWT_JWKS_URI",
      /cannot be combined with JWT_PUBLIC_KEY/,
    );
  });

  it("refuses a JWT_PUBLIC_KEY that is not a PEM key", () => {
    expectRefused({ JWT_PUBLIC_KEY: "not a key" }, "JWT_PUBLIC_KEY", /not a PEM public key/);
  });

  it("refuses a private key in JWT_PUBLIC_KEY", () => {
    const pem = rsa.privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    expectRefused({ JWT_PUBLIC_KEY: pem }, "JWT_PUBLIC_KEY", /is a private key/);
  });

  it("refuses a key type jsonwebtoken cannot verify (Ed25519)", () => {
    expectRefused(
      { JWT_PUBLIC_KEY: generateSigningKey("ed25519").pem },
      "JWT_PUBLIC_KEY",
      /ed25519 keys are not supported/,
    );
  });

  it("refuses a JWT_PUBLIC_KEY_FILE that cannot be read", () => {
    expectRefused({ JWT_PUBLIC_KEY_FILE: "/nonexistent/idp.pem" }, "JWT_PUBLIC_KEY_FILE", /cannot read .*ENOENT/);
  });

  it("refuses JWT_ALGORITHMS the key cannot verify: HS256 with a public key, ES256 with RSA, RS256 with a secret", () => {
    expectRefused(
      { JWT_PUBLIC_KEY: rsa.pem, JWT_ALGORITHMS: "RS256,HS256" },
      "JWT_ALGORITHMS",
      /HS256 cannot be verified/,
    );
    expectRefused({ JWT_PUBLIC_KEY: rsa.pem, JWT_ALGORITHMS: "ES256" }, "JWT_ALGORITHMS", /ES256 cannot be verified/);
    expectRefused({ JWT_SECRET: SECRET, JWT_ALGORITHMS: "RS256" }, "JWT_ALGORITHMS", /RS256 cannot be verified/);
    expectRefused(
      { JWT_JWKS_URI: "https://idp.example/jwks", JWT_ALGORITHMS: "RS256,HS256" },
      "JWT_ALGORITHMS",
      /HMAC algorithms cannot be used/,
    );
  });

  it("refuses none or an unknown name in JWT_ALGORITHMS", () => {
    expectRefused({ JWT_SECRET: SECRET, JWT_ALGORITHMS: "none" }, "JWT_ALGORITHMS", /none is not accepted/);
    expectRefused({ JWT_SECRET: SECRET, JWT_ALGORITHMS: "HS256,XS1" }, "JWT_ALGORITHMS", /XS1 is not accepted/);
  });

  it("lets a secret accept HS384/HS512 when JWT_ALGORITHMS says so", () => {
    const { verifier } = configure({ JWT_SECRET: SECRET, JWT_ALGORITHMS: "HS256, HS512" });
    expect((verifier as JwtVerifier).algorithms).toEqual(["HS256", "HS512"]);
  });

  it("refuses a JWKS URL over plain http except on localhost", () => {
    expectRefused({ JWT_JWKS_URI: "http://idp.example/jwks" }, "JWT_JWKS_URI", /https/);
    expectRefused({ JWT_JWKS_URI: "not a url" }, "JWT_JWKS_URI", /url/i);
    expect(configure({ JWT_JWKS_URI: "http://127.0.0.1:8080/jwks" }).verifier).toBeInstanceOf(JwksVerifier);
  });

  it("reads the scope, rate-limit and JWKS settings, with rate limiting off by default", () => {
    const defaults = loadConfig({});
    expect(defaults).toMatchObject({
      RATE_LIMIT_PER_MINUTE: 0,
      JWT_JWKS_REQUESTS_PER_MINUTE: 10,
      JWT_JWKS_CACHE_MAX_AGE_SECONDS: 600,
    });
    expect(defaults.JWT_REQUIRED_SCOPE).toBeUndefined();
    expect(
      loadConfig({
        JWT_REQUIRED_SCOPE: " plants:write  plants:admin ",
        RATE_LIMIT_PER_MINUTE: "120",
        JWT_JWKS_REQUESTS_PER_MINUTE: "5",
        JWT_JWKS_CACHE_MAX_AGE_SECONDS: "60",
      }),
    ).toMatchObject({
      JWT_REQUIRED_SCOPE: ["plants:write", "plants:admin"],
      RATE_LIMIT_PER_MINUTE: 120,
      JWT_JWKS_REQUESTS_PER_MINUTE: 5,
      JWT_JWKS_CACHE_MAX_AGE_SECONDS: 60,
    });
    expectRefused({ JWT_REQUIRED_SCOPE: 'plants:"write"' }, "JWT_REQUIRED_SCOPE", /printable ASCII/);
    expectRefused({ RATE_LIMIT_PER_MINUTE: "-1" }, "RATE_LIMIT_PER_MINUTE", /./);
    expectRefused({ JWT_JWKS_REQUESTS_PER_MINUTE: "0" }, "JWT_JWKS_REQUESTS_PER_MINUTE", /./);
  });
});
