import { wrkVersion } from "../../src/wrk-load.js";

/**
 * Whether a test that runs wrk must skip: the bench's own check (the one its session refuses to start without).
 * CI installs wrk (.ci/run) and must run it; elsewhere it says why.
 */
export function skipWithoutWrk(what: string): boolean {
  const skip = wrkVersion() === undefined && process.env.CI !== "true";
  if (skip) console.warn(`skipping ${what}: wrk is not installed (apt-get install wrk)`);
  return skip;
}
