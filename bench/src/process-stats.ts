import { readdirSync, readFileSync } from "node:fs";

// /proc reports CPU time in clock ticks; Linux has used 100 per second on every common platform.
const TICKS_PER_SECOND = 100;

/** User + system CPU seconds in a /proc stat line (a process's, or one of its threads'). */
function statCpuSeconds(statFile: string): number {
  const stat = readFileSync(statFile, "utf8");
  // Fields after the parenthesised command name (which may itself contain spaces); utime and stime are
  // fields 14 and 15 of the whole line, so 12 and 13 after the name.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** User + system CPU seconds the process has used so far (all its threads, ended ones included), from /proc/<pid>/stat. */
export function cpuSeconds(pid: number): number {
  return statCpuSeconds(`/proc/${pid}/stat`);
}

/** What a server's threads are counted as, by the name Linux shows for each (`/proc/<pid>/task/<tid>/comm`). */
export const THREAD_ROLES = [
  "main thread",
  "SQLite writer thread",
  "V8 helper threads (GC, compiler)",
  "other threads",
] as const;
export type ThreadRole = (typeof THREAD_ROLES)[number];
export type ThreadCpu = Record<ThreadRole, number>;

function roleOf(pid: number, tid: number, name: string): ThreadRole {
  if (tid === pid) return "main thread";
  // The server names its worker threads (a Worker's name becomes the OS thread's, cut to 15 characters).
  if (name.startsWith("sqlite-writer")) return "SQLite writer thread";
  // V8's platform threads: "V8Worker" and "DelayedTaskSche(duler)", prefixed "node-" from Node 26.
  if (/V8Worker|DelayedTaskSche/.test(name)) return "V8 helper threads (GC, compiler)";
  return "other threads";
}

/** A reading of a process's CPU seconds so far: its total, and the same split by thread role. */
export interface CpuReading {
  total: number;
  byRole: ThreadCpu;
}

/**
 * The process's CPU seconds so far, whole and per thread role. "other threads" is the total less the named roles,
 * so it also holds threads that have ended (the SQLite migration thread, a libuv pool thread) and the roles add
 * up to the total. The threads are read one by one after the total, so a clock tick can land in a named role and
 * not yet in the total: "other threads" is clamped at zero for that.
 */
export function readCpu(pid: number): CpuReading {
  const byRole: ThreadCpu = {
    "main thread": 0,
    "SQLite writer thread": 0,
    "V8 helper threads (GC, compiler)": 0,
    "other threads": 0,
  };
  const total = cpuSeconds(pid);
  for (const entry of readdirSync(`/proc/${pid}/task`)) {
    const tid = Number(entry);
    try {
      const role = roleOf(pid, tid, readFileSync(`/proc/${pid}/task/${entry}/comm`, "utf8").trim());
      if (role !== "other threads") byRole[role] += statCpuSeconds(`/proc/${pid}/task/${entry}/stat`);
    } catch {
      // The thread ended between listing and reading: its time is in the process's total, so in "other threads".
    }
  }
  byRole["other threads"] = Math.max(
    0,
    total - byRole["main thread"] - byRole["SQLite writer thread"] - byRole["V8 helper threads (GC, compiler)"],
  );
  return { total, byRole };
}

/** CPU microseconds per request between two readings: the whole process's, and per thread role. */
export interface CpuPerRequest {
  all: number;
  byRole: ThreadCpu;
}

/**
 * The CPU between two readings divided by `requests`. The whole comes from the process totals; a role's
 * difference can dip below zero when a tick was read into the wrong role, so "other threads" is clamped there.
 */
export function cpuPerRequest(before: CpuReading, after: CpuReading, requests: number): CpuPerRequest {
  const perRequest = (seconds: number) => (seconds * 1e6) / requests;
  const byRole = Object.fromEntries(
    THREAD_ROLES.map((role) => [role, perRequest(after.byRole[role] - before.byRole[role])]),
  ) as ThreadCpu;
  byRole["other threads"] = Math.max(0, byRole["other threads"]);
  return { all: perRequest(after.total - before.total), byRole };
}

/** Resident set size now and its peak since the process started, in bytes, from /proc/<pid>/status. */
export function memory(pid: number): { rssBytes: number; peakRssBytes: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rssBytes: kib("VmRSS"), peakRssBytes: kib("VmHWM") };
}
