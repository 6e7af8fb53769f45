import { execFileSync } from "node:child_process";

function hasWrk(): boolean {
  try {
    execFileSync("wrk", ["-v"], { stdio: "ignore" });
  } catch (error) {
    // wrk -v exits 1 after printing its banner; only a missing binary is ENOENT.
    return (error as NodeJS.ErrnoException).code !== "ENOENT";
  }
  return true;
}

/** Whether a test that runs wrk must skip: CI installs wrk (.ci/run) and must run it; elsewhere it says why. */
export function skipWithoutWrk(what: string): boolean {
  const skip = !hasWrk() && process.env.CI !== "true";
  if (skip) console.warn(`skipping ${what}: wrk is not installed (apt-get install wrk)`);
  return skip;
}
