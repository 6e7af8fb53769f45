/** How a mode runs; every field has a default and a `--flag` in run.ts. */
export interface BenchOptions {
  mode: "compare" | "quick" | "prefill" | "soak";
  connections: number[];
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
