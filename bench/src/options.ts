/** How a mode runs; every field has a default and a `--flag` in run.ts. */
export interface BenchOptions {
  mode: "compare" | "quick" | "prefill" | "soak" | "profile" | "ab" | "starts" | "overload" | "backup" | "copy-store";
  connections: number[];
  /** compare: which servers (all six by default; the floor (2) is always included, ratios need it). */
  servers: string[];
  /** compare: the stores (1) runs on; both side by side when both are named. */
  databases: Database[];
  /** The PostgreSQL server `--database postgres` creates its fresh database on (a role that may create one). */
  postgresUrl: string;
  /**
   * compare: extra Plant Store servers to measure alongside (A/B of a lever); ab: the one server loaded together
   * with the built one. Another build (label=path/to/main.js), the same build with extra environment (label=KEY=VALUE,KEY=VALUE; `$OTLP_SINK` names the bench's OTLP receiver) or with other Node flags (label=--flag[,--flag]).
   */
  variants: Variant[];
  rounds: number;
  warmupSeconds: number;
  seconds: number;
  /** Where the report goes. */
  outDir: string;
  /** Extra lines for the report's head, e.g. that the machine was shared. */
  notes: string[];
  /** The command line that produced the report, printed in it for reruns. */
  command: string;
  /** prefill, backup: plants stored before measuring; copy-store: plants copied. */
  rows: number;
  /** overload: a short run of every row (CI's smoke test), not a measurement. */
  quick: boolean;
  /** soak, backup: fixed request rate; soak: total duration. */
  rate: number;
  durationSeconds: number;
}

export type Database = "sqlite" | "postgres";

/** An extra Plant Store server in a compare run: another build, or the same one with a switch on or other Node flags. */
export interface Variant {
  label: string;
  main?: string;
  env?: Record<string, string>;
  /** Node flags after the deployed ones, so a V8 flag given again here wins (e.g. --max-semi-space-size=8). */
  nodeArgs?: string[];
}

/** Parses `label=path/to/main.js`, `label=KEY=VALUE,KEY=VALUE` or `label=--flag[,--flag]`. */
export function parseVariant(text: string): Variant {
  const at = text.indexOf("=");
  const label = text.slice(0, at);
  const rest = text.slice(at + 1);
  if (at <= 0 || rest === "")
    throw new Error("--variant must be label=path/to/main.js, label=KEY=VALUE[,KEY=VALUE] or label=--flag[,--flag]");
  if (rest.startsWith("--")) return { label, nodeArgs: rest.split(",") };
  if (!/^[A-Z_][A-Z0-9_]*=/.test(rest)) return { label, main: rest };
  const env = Object.fromEntries(
    rest.split(",").map((pair) => {
      const eq = pair.indexOf("=");
      return [pair.slice(0, eq), pair.slice(eq + 1)];
    }),
  );
  return { label, env };
}
