import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { expectConfigError } from "../support/config-error.js";

describe("connection timeout configuration", () => {
  it("defaults to 20 s for headers, 60 s for a whole request and 5 s for an idle keep-alive connection", () => {
    expect(loadConfig({})).toMatchObject({
      HEADERS_TIMEOUT_MS: 20_000,
      REQUEST_TIMEOUT_MS: 60_000,
      KEEP_ALIVE_TIMEOUT_MS: 5_000,
    });
  });

  it("reads each timeout from the environment", () => {
    expect(
      loadConfig({ HEADERS_TIMEOUT_MS: "1000", REQUEST_TIMEOUT_MS: "2000", KEEP_ALIVE_TIMEOUT_MS: "3000" }),
    ).toMatchObject({
      HEADERS_TIMEOUT_MS: 1000,
      REQUEST_TIMEOUT_MS: 2000,
      KEEP_ALIVE_TIMEOUT_MS: 3000,
    });
  });

  it.each([
    ["HEADERS_TIMEOUT_MS", { HEADERS_TIMEOUT_MS: "soon" }],
    ["REQUEST_TIMEOUT_MS", { REQUEST_TIMEOUT_MS: "0" }],
    ["KEEP_ALIVE_TIMEOUT_MS", { KEEP_ALIVE_TIMEOUT_MS: "-1" }],
  ])("rejects a bad %s with a message naming it", (name, env) => {
    expectConfigError(() => loadConfig(env), name);
  });

  it("rejects a headers timeout longer than the request timeout, which Node would refuse at start", () => {
    expect(() => loadConfig({ HEADERS_TIMEOUT_MS: "5000", REQUEST_TIMEOUT_MS: "4000" })).toThrow(
      /^invalid configuration: HEADERS_TIMEOUT_MS: must not exceed REQUEST_TIMEOUT_MS$/,
    );
  });
});
