import { fileURLToPath } from "node:url";
import type { Config } from "../config.js";
import { createLogger } from "../logger.js";
import { type CopyResult, CopyStoreError, copyStore } from "../store/copy-store.js";
import { databaseSystem, describeDatabase } from "../store/open-store.js";
import { createProgress } from "./progress.js";

/** Exit code when the copy ran but the two sides differ: conflicts, or a target holding other plants. */
export const EXIT_DIFFERENT = 2;
const CONFLICTS_LISTED = 100;

export const copyStoreCommand = {
  name: "copy-store",
  summary: "copy every plant from the SQLite store in DATABASE_URL to PostgreSQL",
  usage: "copy-store --to <postgres URL> [--batch-size <plants>]",
  description: [
    "Migrates the target with the server's migrations, copies in batches, then prints both sides' count and",
    "checksum. Run it with the server stopped or not ready. Safe to run again: plants already copied count as",
    `done. Exit 0 when both sides match, ${EXIT_DIFFERENT} on conflicts (ids the target holds with other data,`,
    "listed) or a mismatch, 1 on an error.",
  ].join("\n"),
  options: {
    to: { type: "string" },
    "batch-size": { type: "string" },
  },
  async run({ values, config }: { values: { to?: string; "batch-size"?: string }; config: Config }): Promise<number> {
    const to = values.to;
    if (to === undefined) throw new CopyStoreError("--to <postgres URL> is required");
    const batchSize = values["batch-size"] === undefined ? undefined : Number(values["batch-size"]);
    if (batchSize !== undefined && !(Number.isInteger(batchSize) && batchSize >= 1 && batchSize <= 100_000)) {
      throw new CopyStoreError("--batch-size must be a whole number from 1 to 100000");
    }
    if (databaseSystem(config.DATABASE_URL) !== "sqlite") {
      throw new CopyStoreError("DATABASE_URL names PostgreSQL; copy-store copies from a SQLite store");
    }
    const sqliteFile = config.DATABASE_URL.startsWith("file:") ? fileURLToPath(config.DATABASE_URL) : config.DATABASE_URL;
    const out = process.stdout;
    // Started once the copy starts, so the rate leaves out connecting and migrating.
    let progress: ReturnType<typeof createProgress> | undefined;
    const started = performance.now();
    const result = await copyStore({
      sqliteFile,
      postgresUrl: to,
      batchSize,
      connectTimeoutMs: config.PG_CONNECT_TIMEOUT_MS,
      // The migration's warnings (a newer schema) as the server logs them, on stderr.
      logger: createLogger("warn", process.stderr),
      onStart: (plants) => {
        out.write(`copying ${plants} plants from ${sqliteFile} to ${describeDatabase(to)}\n`);
        progress = createProgress({ stream: process.stderr, noun: "plants" });
      },
      onProgress: (done, total) => progress?.update(done, total),
      onVerify: () => progress?.end(),
    });
    const seconds = (performance.now() - started) / 1000;
    out.write(report(result, seconds));
    return result.conflicts.length === 0 && sameTally(result) ? 0 : EXIT_DIFFERENT;
  },
};

function report(result: CopyResult, seconds: number): string {
  const lines = [
    `copied ${result.copied}, already there ${result.alreadyThere}, conflicts ${result.conflicts.length} in ${seconds.toFixed(1)} s`,
    `source: ${result.source.plants} plants, checksum ${result.source.checksum}`,
    `target: ${result.target.plants} plants, checksum ${result.target.checksum}`,
  ];
  for (const conflict of result.conflicts.slice(0, CONFLICTS_LISTED)) {
    lines.push(
      `conflict: id ${conflict.id}: source ${JSON.stringify(conflict.source)}, target ${JSON.stringify(conflict.target)}`,
    );
  }
  if (result.conflicts.length > CONFLICTS_LISTED) lines.push(`... and ${result.conflicts.length - CONFLICTS_LISTED} more conflicts`);
  if (result.conflicts.length > 0) {
    lines.push(`not verified: ${result.conflicts.length} ids hold other data in the target; settle them and run again`);
  } else if (!sameTally(result)) {
    lines.push("not verified: the target holds plants the source does not");
  } else {
    lines.push("verified: both sides hold the same plants");
  }
  return `${lines.join("\n")}\n`;
}

function sameTally({ source, target }: CopyResult): boolean {
  return source.plants === target.plants && source.checksum === target.checksum;
}
