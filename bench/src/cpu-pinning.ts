import { execFileSync } from "node:child_process";
import { availableParallelism } from "node:os";

/**
 * Pins servers to one core and the load generator to another with taskset, so they never compete for a
 * core and each server gets exactly one (Node serves HTTP on one thread). Without taskset, or on a single
 * core, nothing is pinned and the report says so.
 */
export interface CpuPinning {
  server: string[];
  load: string[];
  description: string;
}

function hasTaskset(): boolean {
  try {
    execFileSync("taskset", ["-V"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

export function cpuPinning(): CpuPinning {
  if (availableParallelism() < 2 || !hasTaskset()) {
    return { server: [], load: [], description: "not pinned (taskset missing or a single core)" };
  }
  return {
    server: ["taskset", "-c", "1"],
    load: ["taskset", "-c", "0"],
    description: "server on core 1, load generator on core 0 (taskset)",
  };
}

/** The command and arguments to spawn `command args…` under `prefix` (a taskset invocation or nothing). */
export function pinned(prefix: string[], command: string, args: string[]): [string, string[]] {
  return prefix.length === 0 ? [command, args] : [prefix[0]!, [...prefix.slice(1), command, ...args]];
}
