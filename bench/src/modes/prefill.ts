import { join } from "node:path";
import { fillSqliteStore } from "@plant-store/server/testing/fill-sqlite-store";
import {
  checkAnswers,
  IdBlocks,
  type Measurement,
  measureAlternating,
  measurementPlan,
  summarise,
} from "../measure.js";
import type { BenchOptions } from "../options.js";
import { header, rawTable, ratioTarget, summaryTable, targetTable } from "../report.js";
import { type Session, withSession, writeOutputs } from "../session.js";

/** Ids 1..rows, as if clients had sent them. */
function* plantsUpTo(rows: number) {
  for (let id = 1; id <= rows; id++) yield { id, name: `plant ${id}`, tag: id % 2 === 0 ? "tropical" : null };
}

/** A Plant Store started on a store already holding ids 1..rows (its file: <session dir>/prefilled/plants.db). */
export async function prefilledServer(session: Session, rows: number) {
  const name = "prefilled";
  const databaseFile = join(session.dir, name, "plants.db");
  const started = Date.now();
  await fillSqliteStore(databaseFile, plantsUpTo(rows));
  process.stdout.write(`stored ${rows} plants in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  return session.start({ key: "plant-store", name, databaseFile, label: `Plant Store, ${rows} plants stored` });
}

/** Throughput of the full pipeline with a large store against an empty one, ascending and random ids. */
export async function prefill(options: BenchOptions) {
  return withSession(async (session) => {
    const empty = await session.start({ key: "plant-store", name: "empty", label: "Plant Store, empty store" });
    const full = await prefilledServer(session, options.rows);
    // Ids above every stored one: ascending ids append to the table's B-tree.
    const ids = new IdBlocks(options.rows + 1);
    for (const server of [empty, full]) await checkAnswers(server, session.token, ids.take());
    const progress = (line: string) => process.stdout.write(`${line}\n`);
    const relabel = (order: string) => (m: Measurement) => ({ ...m, label: `${m.label}, ${order} ids` });
    const ascending = (
      await measureAlternating([empty, full], measurementPlan(options, session, "ascending"), ids, progress)
    ).map(relabel("ascending"));
    const random = (
      await measureAlternating([empty, full], measurementPlan(options, session, "random"), ids, progress)
    ).map(relabel("random"));
    const ascendingSummaries = summarise(ascending, `${empty.label}, ascending ids`);
    const randomSummaries = summarise(random, `${empty.label}, random ids`);
    const targets = ascendingSummaries
      .filter((s) => s.label.startsWith(full.label))
      .map((s) =>
        ratioTarget(
          `${options.rows} stored vs empty, ascending ids, ${s.connections} connections`,
          s.ratioToReference,
          0.9,
        ),
      );
    const markdown = [
      ...header({
        title: `Plant Store benchmark: ${options.rows} plants already stored`,
        command: options.command,
        startedAt: session.startedAt,
        environment: session.environment,
        pinning: session.pin.description,
        plan: `${options.connections.join(" and ")} connections; ${options.warmupSeconds} s warm-up, ${options.rounds} alternating rounds of ${options.seconds} s`,
        notes: options.notes,
      }),
      "Two Plant Store processes side by side, one on an empty store and one on a store filled with ids",
      `1..${options.rows} before it started. Ascending ids append after the stored ones; random ids (up to 2^52)`,
      "land anywhere in the table's B-tree. Ratios are paired round by round against the empty store with the same id order.",
      "",
      "## Targets",
      "",
      ...targetTable(targets),
      "## Ascending ids",
      "",
      ...summaryTable(ascendingSummaries, "empty store"),
      "## Random ids",
      "",
      ...summaryTable(randomSummaries, "empty store"),
      ...rawTable([...ascending, ...random]),
    ].join("\n");
    writeOutputs(options.outDir, { "benchmarks-prefill.md": markdown });
    return { files: ["benchmarks-prefill.md"] };
  });
}
