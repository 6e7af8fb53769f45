import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { expectConfigError } from "./support/config-error.js";

describe("operations configuration", () => {
  it("defaults to no CORS origins, no trusted proxy, metrics on the API port and no readiness delay", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      CORS_ORIGINS: [],
      TRUST_PROXY: false,
      SHUTDOWN_DELAY_MS: 0,
      SHUTDOWN_TIMEOUT_MS: 10_000,
    });
    expect(config.METRICS_PORT).toBeUndefined();
    expect(config.METRICS_HOST).toBeUndefined();
  });

  it("in production keeps accepting for 5 s after SIGTERM by default, as a Kubernetes rollout needs", () => {
    const production = { NODE_ENV: "production", JWT_SECRET: "ops-config-test-secret-of-32-characters" };
    expect(loadConfig(production).SHUTDOWN_DELAY_MS).toBe(5_000);
    expect(loadConfig({ ...production, SHUTDOWN_DELAY_MS: "0" }).SHUTDOWN_DELAY_MS).toBe(0);
    expect(loadConfig({ NODE_ENV: "test" }).SHUTDOWN_DELAY_MS).toBe(0);
  });

  it("reads CORS_ORIGINS as a comma-separated list of origins", () => {
    expect(loadConfig({ CORS_ORIGINS: "https://app.example.com, http://localhost:5173" }).CORS_ORIGINS).toEqual([
      "https://app.example.com",
      "http://localhost:5173",
    ]);
  });

  it.each([
    ["true", true],
    ["false", false],
    ["2", 2],
    ["loopback", "loopback"],
    ["10.0.0.0/8, 192.168.1.7", "10.0.0.0/8, 192.168.1.7"],
  ])("reads TRUST_PROXY=%s as Express expects it", (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).TRUST_PROXY).toEqual(expected);
  });

  it("reads METRICS_PORT, METRICS_HOST and SHUTDOWN_DELAY_MS", () => {
    expect(loadConfig({ METRICS_PORT: "9464", METRICS_HOST: "0.0.0.0", SHUTDOWN_DELAY_MS: "5000" })).toMatchObject({
      METRICS_PORT: 9464,
      METRICS_HOST: "0.0.0.0",
      SHUTDOWN_DELAY_MS: 5000,
    });
  });

  it("reads PUBLIC_URL as the API's base URL, without a trailing slash", () => {
    expect(loadConfig({}).PUBLIC_URL).toBeUndefined();
    expect(loadConfig({ PUBLIC_URL: "https://plants.example.com/api/" }).PUBLIC_URL).toBe(
      "https://plants.example.com/api",
    );
  });

  it.each([
    ["PUBLIC_URL", { PUBLIC_URL: "plants.example.com" }],
    ["PUBLIC_URL", { PUBLIC_URL: "ftp://plants.example.com" }],
    ["PUBLIC_URL", { PUBLIC_URL: "https://plants.example.com/?v=1" }],
    ["CORS_ORIGINS", { CORS_ORIGINS: "*" }],
    ["CORS_ORIGINS", { CORS_ORIGINS: "https://app.example.com/path" }],
    ["TRUST_PROXY", { TRUST_PROXY: "yes please" }],
    ["TRUST_PROXY", { TRUST_PROXY: "10.0.0.0/abc" }],
    ["METRICS_PORT", { METRICS_PORT: "99999" }],
    ["SHUTDOWN_DELAY_MS", { SHUTDOWN_DELAY_MS: "-1" }],
  ])("rejects a bad %s with a message naming it", (name, env) => {
    expectConfigError(() => loadConfig(env), name);
  });
});
