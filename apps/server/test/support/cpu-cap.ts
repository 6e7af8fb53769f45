import { mkdirSync, rmdirSync, writeFileSync } from "node:fs";

const CPU_CONTROLLER = "/sys/fs/cgroup/cpu";
const PERIOD_US = 10_000;

/** A process held under a CPU quota; `release()` removes the cgroup once the process has exited. */
export interface CpuCap {
  release(): void;
}

/**
 * Caps a running process at `cores` of CPU, as a pod's CPU limit does: a cgroup v1 CPU quota over a 10 ms period.
 * Undefined where the machine has no writable cgroup v1 cpu controller; the caller says what it does then.
 */
export function capCpu(pid: number, cores: number): CpuCap | undefined {
  const dir = `${CPU_CONTROLLER}/plant-store-test-${pid}`;
  try {
    mkdirSync(dir);
  } catch {
    return undefined;
  }
  try {
    writeFileSync(`${dir}/cpu.cfs_period_us`, String(PERIOD_US));
    writeFileSync(`${dir}/cpu.cfs_quota_us`, String(Math.round(PERIOD_US * cores)));
    // cgroup.procs moves every thread of the process (the store's worker threads too).
    writeFileSync(`${dir}/cgroup.procs`, String(pid));
  } catch {
    rmdirSync(dir);
    return undefined;
  }
  return { release: () => rmdirSync(dir) };
}
