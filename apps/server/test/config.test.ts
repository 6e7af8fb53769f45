import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { expectConfigError } from "./support/config-error.js";

const SECRET = "a-secret-that-is-at-least-32-characters!";

describe("loadConfig", () => {
  it("has working defaults for development", () => {
    expect(loadConfig({})).toMatchObject({
      NODE_ENV: "development",
      HOST: "127.0.0.1",
      PORT: 3000,
      DATABASE_URL: { system: "sqlite", file: resolve("data/plants.db") },
      LOG_LEVEL: "info",
      BODY_LIMIT_BYTES: 1048576,
    });
  });

  it("reads every variable it documents", () => {
    const config = loadConfig({
      NODE_ENV: "production",
      HOST: "0.0.0.0",
      PORT: "8080",
      DATABASE_URL: "file:///var/lib/plants.db",
      JWT_SECRET: SECRET,
      JWT_ISSUER: "https://issuer.example",
      JWT_AUDIENCE: "plant-store",
      LOG_LEVEL: "warn",
    });
    expect(config).toMatchObject({
      PORT: 8080,
      DATABASE_URL: { system: "sqlite", file: "/var/lib/plants.db" },
      JWT_ISSUER: "https://issuer.example",
      LOG_LEVEL: "warn",
    });
  });

  it.each([
    ["PORT", { PORT: "eighty" }],
    ["PORT", { PORT: "70000" }],
    ["LOG_LEVEL", { LOG_LEVEL: "loud" }],
    ["NODE_ENV", { NODE_ENV: "staging" }],
    ["JWT_SECRET", { JWT_SECRET: "short" }],
  ])("rejects a bad %s with a message naming it", (name, env) => {
    expectConfigError(() => loadConfig(env), name);
  });

  it("refuses production without JWT configuration", () => {
    expect(() => loadConfig({ NODE_ENV: "production" })).toThrow(/JWT_SECRET: is required when NODE_ENV=production/);
  });

  it("treats empty variables as unset", () => {
    expect(loadConfig({ PORT: "", JWT_SECRET: "" })).toMatchObject({ PORT: 3000, JWT_SECRET: undefined });
  });
});
