import { createLogger } from "../logger.js";
import { type CopyResult, copyStore } from "../store-operations/copy-store.js";
import { describeDatabaseUrl, parseDatabaseUrl } from "../store/database-url.js";
import { type Command, positiveNumber } from "./command.js";
import { EXIT_DIFFERENT } from "./exit-codes.js";
import { progressLine } from "./progress.js";
import { CommandError, DatabaseUrlError } from "../operator-errors.js";

const DEFAULT_BATCH_SIZE = 5_000;
const CONFLICTS_LISTED = 100;

/** `plant-store copy-store`: every plant of the SQLite store into PostgreSQL, verified. */
export const copyStoreCommand: Command = {
  name: "copy-store",
  usage: ["--to <postgres URL> [--batch-size <plants>]"],
  description: [
    "Copies every plant of the SQLite store in DATABASE_URL into the PostgreSQL database at --to: migrates it",
    "with the server's own migrations, copies in batches, then prints both sides' plant count and checksum.",
    "Stop the server first (or take it out of readiness): plants created during the copy are not copied.",
    "",
    "Safe to run again after an interruption: a plant the target holds with the same data counts as done. One it",
    `holds with other data is a conflict: listed by id and left as it is. Exit 0 when both sides match, ${EXIT_DIFFERENT} on`,
    "conflicts or when the target holds plants the source does not, 1 with one line on stderr on an error.",
  ].join("\n"),
  options: {
    to: { type: "string", value: "postgres URL", description: "the target database (postgres:// or postgresql://)" },
    "batch-size": {
      type: "string",
      value: "plants",
      description: `plants per INSERT (default: ${DEFAULT_BATCH_SIZE})`,
    },
  },
  async run(args, config) {
    const to = args.values.to;
    if (typeof to !== "string") throw new CommandError("--to <postgres URL> is required", { setting: "--to" });
    const target = parseTarget(to);
    if (args.positionals.length > 0)
      throw new CommandError(`unexpected argument ${JSON.stringify(args.positionals[0])}`);
    const batchSize = positiveNumber(args, "batch-size", DEFAULT_BATCH_SIZE, { integer: true });
    const source = config.DATABASE_URL;
    if (source.system !== "sqlite")
      throw new CommandError("DATABASE_URL names PostgreSQL; copy-store copies from a SQLite store", {
        setting: "DATABASE_URL",
      });
    const sqliteFile = source.file;

    const progress = progressLine();
    let copyStarted = 0;
    const started = performance.now();
    const result = await copyStore({
      sqliteFile,
      target,
      batchSize,
      connectTimeoutMs: config.PG_CONNECT_TIMEOUT_MS,
      // A migration's warning (a schema newer than this build) as the server logs it, on stderr.
      logger: createLogger("warn", process.stderr),
      onStart: (plants) => {
        process.stdout.write(
          `copying ${count(plants, "plant")} from ${sqliteFile} to ${describeDatabaseUrl(target)}\n`,
        );
        copyStarted = performance.now();
      },
      onProgress: (done, total) => progress.update(progressText(done, total, performance.now() - copyStarted)),
      onVerify: () => progress.done(),
    });
    process.stdout.write(report(result, (performance.now() - started) / 1000));
    return result.conflicts.length === 0 && sameTally(result) ? 0 : EXIT_DIFFERENT;
  },
};

/** --to, read as DATABASE_URL is: a PostgreSQL database with a host and a name. */
function parseTarget(to: string) {
  let target: ReturnType<typeof parseDatabaseUrl>;
  try {
    target = parseDatabaseUrl(to);
  } catch (error) {
    if (error instanceof DatabaseUrlError) throw new CommandError(`--to: ${error.message}`, { setting: "--to" });
    throw error;
  }
  if (target.system !== "postgresql")
    throw new CommandError(
      `--to: ${target.file} is a SQLite file; copy-store copies into PostgreSQL (a postgres:// URL)`,
      { setting: "--to" },
    );
  return target;
}

/** `[#####-----]  45% 450000/1000000 plants, 81000 plants/s, 7 s left` */
export function progressText(done: number, total: number, elapsedMs: number): string {
  const fraction = total === 0 ? 1 : done / total;
  const filled = Math.round(fraction * 20);
  const rate = elapsedMs > 0 ? Math.round((done * 1000) / elapsedMs) : 0;
  const left = rate > 0 && done < total ? `, ${Math.ceil((total - done) / rate)} s left` : "";
  const percent = String(Math.floor(fraction * 100)).padStart(3);
  return `[${"#".repeat(filled)}${"-".repeat(20 - filled)}] ${percent}% ${done}/${total} plants, ${rate} plants/s${left}`;
}

function report(result: CopyResult, seconds: number): string {
  const lines = [
    `copied ${result.copied}, already there ${result.alreadyThere}, conflicts ${result.conflicts.length} in ${seconds.toFixed(1)} s`,
    `source: ${count(result.source.plants, "plant")}, checksum ${result.source.checksum}`,
    `target: ${count(result.target.plants, "plant")}, checksum ${result.target.checksum}`,
  ];
  for (const { id, source, target } of result.conflicts.slice(0, CONFLICTS_LISTED)) {
    lines.push(`conflict: id ${id}: source ${JSON.stringify(source)}, target ${JSON.stringify(target)}`);
  }
  if (result.conflicts.length > CONFLICTS_LISTED)
    lines.push(`... and ${count(result.conflicts.length - CONFLICTS_LISTED, "more conflict")}`);
  if (result.conflicts.length === 1) {
    lines.push("not verified: 1 id holds other data in the target; settle it and run again");
  } else if (result.conflicts.length > 1) {
    lines.push(`not verified: ${result.conflicts.length} ids hold other data in the target; settle them and run again`);
  } else if (result.extra.count > 0) {
    const { count: extra, firstIds } = result.extra;
    // The ids an operator looks up, at most EXTRA_IDS_LISTED of them, and how many more there are.
    const more = extra > firstIds.length ? ` and ${extra - firstIds.length} more` : "";
    const ids = `${extra === 1 ? "id" : "ids"} ${firstIds.join(", ")}${more}`;
    lines.push(`not verified: the target holds ${count(extra, "plant")} the source does not (${ids})`);
  } else if (!sameTally(result)) {
    // The same ids and no conflicts, yet other tallies: something changed the target's rows during the copy.
    lines.push("not verified: the two sides' checksums differ; make sure nothing writes to the target, and run again");
  } else {
    lines.push("verified: both sides hold the same plants");
  }
  return `${lines.join("\n")}\n`;
}

/** `1 plant`, `2 plants`. */
function count(how: number, noun: string): string {
  return `${how} ${noun}${how === 1 ? "" : "s"}`;
}

function sameTally({ source, target }: CopyResult): boolean {
  return source.plants === target.plants && source.checksum === target.checksum;
}
