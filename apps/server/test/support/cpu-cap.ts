import { mkdirSync, rmdirSync, writeFileSync } from "node:fs";

const CPU_CONTROLLER = "/sys/fs/cgroup/cpu";
const PERIOD_US = 10_000;
// The kernel's smallest quota: a tenth of a core at the 10 ms period.
const MIN_QUOTA_US = 1_000;

/** A process held under a CPU quota; `lift()` moves it back out (uncapped), `release()` removes the cgroup once empty. */
export interface CpuCap {
  lift(): void;
  release(): void;
}

/**
 * Caps a running process at `cores` of CPU, as a pod's CPU limit does: a cgroup v1 CPU quota over a 10 ms period,
 * or `periodUs` for a cap under a tenth of a core (the kernel's smallest quota is 1 ms).
 * Undefined where the machine has no writable cgroup v1 cpu controller; the caller says what it does then.
 */
export function capCpu(pid: number, cores: number, periodUs = PERIOD_US): CpuCap | undefined {
  if (periodUs * cores < MIN_QUOTA_US)
    throw new RangeError(`a quota of ${cores} core over ${periodUs} us is under the kernel's 1 ms`);
  const dir = `${CPU_CONTROLLER}/plant-store-test-${pid}`;
  try {
    mkdirSync(dir);
  } catch {
    return undefined;
  }
  try {
    writeFileSync(`${dir}/cpu.cfs_period_us`, String(periodUs));
    writeFileSync(`${dir}/cpu.cfs_quota_us`, String(Math.round(periodUs * cores)));
    // cgroup.procs moves every thread of the process (the store's worker threads too).
    writeFileSync(`${dir}/cgroup.procs`, String(pid));
  } catch {
    rmdirSync(dir);
    return undefined;
  }
  return {
    lift: () => writeFileSync(`${CPU_CONTROLLER}/cgroup.procs`, String(pid)),
    release: () => rmdirSync(dir),
  };
}
