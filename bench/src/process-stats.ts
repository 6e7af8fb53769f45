import { readFileSync } from "node:fs";

// /proc reports CPU time in clock ticks; Linux has used 100 per second on every common platform.
const TICKS_PER_SECOND = 100;

/** User + system CPU seconds the process has used so far (all its threads), from /proc/<pid>/stat. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the parenthesised command name (which may itself contain spaces); utime and stime are
  // fields 14 and 15 of the whole line, so 12 and 13 after the name.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** Resident set size now and its peak since the process started, in bytes, from /proc/<pid>/status. */
export function memory(pid: number): { rssBytes: number; peakRssBytes: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rssBytes: kib("VmRSS"), peakRssBytes: kib("VmHWM") };
}
