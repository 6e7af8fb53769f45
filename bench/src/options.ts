/** How a mode runs; every field has a default and a `--flag` in run.ts. */
export interface BenchOptions {
  mode: "compare" | "quick" | "prefill" | "soak";
  connections: number[];
  /** compare: which servers (all five by default; the floor (2) is always included, ratios need it). */
  servers: string[];
  /**
   * compare: extra Plant Store builds or settings to measure alongside, as label=path/to/main.js, optionally
   * followed by ,NAME=value environment variables (A/B of a lever, e.g. the cost of VALIDATE_RESPONSES=true).
   */
  variants: { label: string; main: string; env: Record<string, string> }[];
  rounds: number;
  warmupSeconds: number;
  seconds: number;
  /** Where the report goes. */
  outDir: string;
  /** Extra lines for the report's head, e.g. that the machine was shared. */
  notes: string[];
  /** The command line that produced the report, printed in it for reruns. */
  command: string;
  /** prefill: plants stored before measuring. */
  rows: number;
  /** soak: fixed request rate and total duration. */
  rate: number;
  durationSeconds: number;
}
