import { expect } from "vitest";
import { ConfigError } from "../../src/config.js";

/** Expects `configure()` to stop the start with a ConfigError whose message names `variable` (and says `detail`). */
export function expectConfigError(configure: () => unknown, variable: string, detail?: RegExp): void {
  let thrown: unknown;
  try {
    configure();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ConfigError);
  expect((thrown as Error).message).toMatch(new RegExp(`^invalid configuration: ${variable}: `));
  if (detail !== undefined) expect((thrown as Error).message).toMatch(detail);
}
