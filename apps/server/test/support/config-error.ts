import { expect } from "vitest";
import { ConfigError } from "../../src/operator-errors.js";

/** Expects `configure()` to stop the start with a ConfigError naming `variable`, in `setting` and its message. */
export function expectConfigError(configure: () => unknown, variable: string, detail?: RegExp): void {
  let thrown: unknown;
  try {
    configure();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ConfigError);
  expect(thrown).toMatchObject({ code: "PLANT_STORE_CONFIG_INVALID", setting: variable });
  expect((thrown as Error).message).toMatch(new RegExp(`^invalid configuration: ${variable}: `));
  if (detail !== undefined) expect((thrown as Error).message).toMatch(detail);
}
