// `pnpm bench [-- --mode compare|quick|prefill|soak|profile|ab|starts|overload|backup|copy-store] [--flags]`: see bench/README.md.
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ab } from "./modes/ab.js";
import { backup } from "./modes/backup.js";
import { compare } from "./modes/compare.js";
import { copyStoreMode } from "./modes/copy-store.js";
import { overload } from "./modes/overload/mode.js";
import { prefill } from "./modes/prefill.js";
import { profile } from "./modes/profile.js";
import { soak } from "./modes/soak.js";
import { starts } from "./modes/starts.js";
import { type BenchOptions, type Database, parseVariant } from "./options.js";

// One folder per Node major: the published reports of each supported Node side by side.
const RESULTS = fileURLToPath(new URL(`../../results/node${process.versions.node.split(".")[0]}/`, import.meta.url));
const QUICK_OUT = fileURLToPath(new URL("../../results/quick/", import.meta.url));
const AB_OUT = fileURLToPath(new URL("../../results/ab/", import.meta.url));
const OVERLOAD_OUT = fileURLToPath(new URL("../../results/overload/", import.meta.url));
const BACKUP_OUT = fileURLToPath(new URL("../../results/backup/", import.meta.url));
const REPORTS = fileURLToPath(new URL("../../reports/", import.meta.url));

// Defaults per mode: compare is the published benchmark; quick keeps it working in CI in well under a minute.
const DEFAULTS: Record<BenchOptions["mode"], Partial<BenchOptions>> = {
  // Rounds long enough to include the old-generation GCs and WAL checkpoints a sustained load brings; five of
  // them, alternating, as an outside side-by-side run takes them.
  compare: { rounds: 5, warmupSeconds: 5, seconds: 10, outDir: RESULTS },
  quick: { rounds: 2, warmupSeconds: 1, seconds: 1, outDir: QUICK_OUT },
  prefill: { rounds: 4, warmupSeconds: 3, seconds: 5, outDir: RESULTS, connections: [50] },
  soak: { outDir: RESULTS, connections: [50] },
  profile: { warmupSeconds: 5, seconds: 15, outDir: RESULTS, connections: [50] },
  // Two servers loaded at once on one core: 25 connections each make the 50 of the published run.
  ab: { rounds: 8, warmupSeconds: 4, seconds: 5, outDir: AB_OUT, connections: [25] },
  // Ten starts of each server, the spread its report gives; a start's slow state shows from its first seconds.
  starts: { rounds: 10, warmupSeconds: 5, seconds: 10, outDir: RESULTS, connections: [50] },
  // The server with admission control at its default and off, row by row (src/modes/overload/); --quick: 1 s runs.
  overload: { rounds: 1, warmupSeconds: 3, seconds: 8, outDir: OVERLOAD_OUT },
  // Three snapshots by each method, with as long between them without one.
  backup: { rounds: 3, warmupSeconds: 5, seconds: 5, outDir: BACKUP_OUT },
  // Bytes per plant and the time copy-store takes at --rows (1,000,000); needs a PostgreSQL (--postgres-url).
  "copy-store": { outDir: REPORTS },
};

/** --quick for the overload mode: every row, too short to measure anything (a smoke test of the mode). */
const QUICK_OVERLOAD: Partial<BenchOptions> = { warmupSeconds: 1, seconds: 1 };

/** The command line to print in the report: the arguments given, minus --note (its text is in the report). */
function rerunCommand(argv: string[]): string {
  const args: string[] = [];
  const given = argv.filter((arg) => arg !== "--");
  for (let i = 0; i < given.length; i++) {
    if (given[i] === "--note") i++;
    else if (!given[i]!.startsWith("--note=")) args.push(given[i]!);
  }
  return ["pnpm bench", ...(args.length > 0 ? ["--", ...args] : [])].join(" ");
}

function parse(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv.filter((arg) => arg !== "--"),
    options: {
      mode: { type: "string", default: "compare" },
      connections: { type: "string" },
      servers: { type: "string" },
      database: { type: "string", default: "sqlite" },
      "postgres-url": { type: "string", default: "postgres://postgres@127.0.0.1:5432/test" },
      variant: { type: "string", multiple: true },
      rounds: { type: "string" },
      warmup: { type: "string" },
      seconds: { type: "string" },
      out: { type: "string" },
      note: { type: "string", multiple: true },
      rows: { type: "string", default: "1000000" },
      rate: { type: "string", default: "1000" },
      duration: { type: "string", default: "600" },
      quick: { type: "boolean", default: false },
    },
  });
  const mode = values.mode as BenchOptions["mode"];
  if (!(mode in DEFAULTS)) throw new Error(`--mode must be one of ${Object.keys(DEFAULTS).join(", ")}`);
  if (values.quick && mode !== "overload")
    throw new Error("--quick is for --mode overload (--mode quick is compare's)");
  const defaults = values.quick && mode === "overload" ? { ...DEFAULTS.overload, ...QUICK_OVERLOAD } : DEFAULTS[mode];
  const number = (text: string | undefined, fallback: number | undefined, flag: string) => {
    const value = text === undefined ? fallback : Number(text);
    if (value === undefined || !Number.isFinite(value) || value <= 0)
      throw new Error(`--${flag} must be a positive number`);
    return value;
  };
  const databases = values.database.split(",");
  if (databases.length === 0 || databases.some((name) => name !== "sqlite" && name !== "postgres")) {
    throw new Error("--database must be sqlite, postgres or sqlite,postgres");
  }
  return {
    mode,
    connections: values.connections?.split(",").map(Number) ?? defaults.connections ?? [50, 100],
    servers: values.servers?.split(",") ?? [],
    databases: [...new Set(databases as Database[])],
    postgresUrl: values["postgres-url"],
    variants: (values.variant ?? []).map(parseVariant),
    rounds: number(values.rounds, defaults.rounds ?? 1, "rounds"),
    warmupSeconds: number(values.warmup, defaults.warmupSeconds ?? 1, "warmup"),
    seconds: number(values.seconds, defaults.seconds ?? 1, "seconds"),
    outDir: values.out ?? defaults.outDir!,
    notes: values.note ?? [],
    command: rerunCommand(argv),
    rows: number(values.rows, undefined, "rows"),
    rate: number(values.rate, undefined, "rate"),
    durationSeconds: number(values.duration, undefined, "duration"),
    quick: values.quick,
  };
}

function fail(error: unknown): never {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

let options: BenchOptions;
try {
  options = parse(process.argv.slice(2));
} catch (error) {
  fail(error);
}
const run = {
  compare,
  quick: compare,
  prefill,
  soak,
  profile,
  ab,
  starts,
  overload,
  backup,
  "copy-store": copyStoreMode,
}[options.mode];
run(options).then(
  (result) => process.stdout.write(`report written to ${options.outDir} (${result.files.join(", ")})\n`),
  fail,
);
