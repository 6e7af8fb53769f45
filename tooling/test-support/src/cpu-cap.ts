import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const CGROUP_V1_CPU = "/sys/fs/cgroup/cpu";
/**
 * cgroup v1's largest cpu.shares. The bench's own groups take it so that, on a shared host, the capped server and
 * the load generator run whenever they are ready and other work waits (as a Guaranteed pod's CPU comes before a
 * best-effort neighbour's): the quota, not the neighbours, then decides what the server gets.
 */
const PRECEDENCE_SHARES = 262_144;

/** A CPU limit for a server under test, as a pod's `resources.limits.cpu` sets one: CFS quota per period. */
export interface CpuCap {
  /** What a report says: the limit, or why there is none. */
  description: string;
  capped: boolean;
  /** Why there is no limit, when there is none. */
  uncappedBecause?: string;
  /** Puts a process (all its threads, and the ones it starts later) under the limit. */
  add(pid: number): void;
  /** Moves a process back out, uncapped (the group cannot be removed while it holds one). */
  lift(pid: number): void;
  /** Throttled periods and time so far (cpu.stat), to report how hard the limit bit. */
  throttled(): { periods: number; seconds: number };
  /** Removes the group; it must hold no process by then. */
  close(): void;
}

/**
 * Makes this process's cgroup v1 `cpu` group `name`, writes `settings` into it in order and, where given, moves
 * `pid` into it. Returns its folder, or why it could not be made; a setting the kernel refuses (a quota under 1 ms)
 * fails after the group was made, so no empty group is left behind.
 */
function cpuGroup(name: string, settings: [file: string, value: number][], pid?: number): { dir: string } | string {
  const dir = join(CGROUP_V1_CPU, `plant-store-${name}-${process.pid}`);
  try {
    if (!existsSync(join(CGROUP_V1_CPU, "cpu.cfs_quota_us")))
      throw new Error(`no cgroup v1 cpu controller at ${CGROUP_V1_CPU}`);
    mkdirSync(dir);
    for (const [file, value] of settings) writeFileSync(join(dir, file), String(value));
    if (pid !== undefined) writeFileSync(join(dir, "cgroup.procs"), String(pid));
    return { dir };
  } catch (error) {
    if (existsSync(dir)) rmdirSync(dir);
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * A cgroup v1 `cpu` group with `share` of a core per `periodUs` (Kubernetes' default period is 100 ms; a 10 ms
 * period chops a long event-loop turn into more, shorter throttles, as a busy node's pods see). `precedence` also
 * gives it the largest cpu.shares (the bench's groups; tests leave it off). Where the controller is missing or not
 * writable, or the kernel refuses the quota (under 1 ms), the server runs uncapped and the description says so.
 */
export function cpuCap(
  share: number,
  periodUs = 10_000,
  name = "bench",
  { precedence = true }: { precedence?: boolean } = {},
): CpuCap {
  const group = cpuGroup(name, [
    ["cpu.cfs_period_us", periodUs],
    ["cpu.cfs_quota_us", Math.round(share * periodUs)],
    ...(precedence ? [["cpu.shares", PRECEDENCE_SHARES] as [string, number]] : []),
  ]);
  const lift = (pid: number) => writeFileSync(join(CGROUP_V1_CPU, "cgroup.procs"), String(pid));
  if (typeof group === "string") {
    return {
      description: `NOT capped: ${group}; every figure below is for an uncapped core`,
      capped: false,
      uncappedBecause: group,
      add: () => undefined,
      lift: () => undefined,
      throttled: () => ({ periods: 0, seconds: 0 }),
      close: () => undefined,
    };
  }
  const { dir } = group;
  const shares = precedence ? `, cpu.shares=${PRECEDENCE_SHARES}` : "";
  return {
    description: `${share} of a core (cgroup v1 cpu.cfs_quota_us=${Math.round(share * periodUs)} per cpu.cfs_period_us=${periodUs}${shares})`,
    capped: true,
    add: (pid) => writeFileSync(join(dir, "cgroup.procs"), String(pid)),
    lift,
    throttled: () => {
      const stat = readFileSync(join(dir, "cpu.stat"), "utf8");
      const field = (name: string) => Number(new RegExp(`^${name} (\\d+)`, "m").exec(stat)?.[1] ?? 0);
      return { periods: field("nr_throttled"), seconds: field("throttled_time") / 1e9 };
    },
    close: () => rmdirSync(dir),
  };
}

/**
 * Puts this process, and so every load generator it starts from now on, in an uncapped group with the largest
 * cpu.shares, so a shared host's other work waits for the generator as it waits for the capped server. Returns how
 * to move back (before the group is removed) and what the report says.
 */
export function loadPrecedence(name = "bench-load"): { description: string; close(): void } {
  const group = cpuGroup(name, [["cpu.shares", PRECEDENCE_SHARES]], process.pid);
  if (typeof group === "string") return { description: `none: ${group}`, close: () => undefined };
  const { dir } = group;
  return {
    description: `bench and load generators in a cgroup v1 cpu group with cpu.shares=${PRECEDENCE_SHARES}`,
    close() {
      writeFileSync(join(CGROUP_V1_CPU, "cgroup.procs"), String(process.pid));
      rmdirSync(dir);
    },
  };
}
