import { createScratchDatabase } from "@plant-store/test-support/scratch-postgres";
import { checkAnswers, IdBlocks, measureAlternating, measurementPlan, summarise } from "../measure.js";
import type { BenchOptions } from "../options.js";
import { startOtlpSink } from "../otlp-sink.js";
import { memory } from "../process-stats.js";
import { type RunningServer, SERVER_LABELS } from "../servers.js";
import { type Session, withSession, writeOutputs } from "../session.js";
import { profileStages } from "../stage-profile.js";
import { type ComparedServers, compareCharts, compareMarkdown, ORDER, POSTGRES_LABEL } from "./compare-report.js";

const OTLP_SINK = "$OTLP_SINK";

export interface CompareResult {
  /** Per server: the status and body of the check request, before any load. */
  answers: Record<string, { status: number; body: string }>;
  measurements: Awaited<ReturnType<typeof measureAlternating>>;
  files: string[];
}

/** The six servers side by side: the built server, three floors and the Fastify peer written two ways. */
export async function compare(options: BenchOptions): Promise<CompareResult> {
  return withSession(async (session) => {
    const compared = await startCompared(session, options);
    const { servers, chosen } = compared;
    const ids = new IdBlocks();
    const answers: CompareResult["answers"] = {};
    for (const server of servers) answers[server.label] = await checkAnswers(server, session.token, ids.take());
    // Idle RSS: each server started and past its first create (lazy imports done), before any load.
    const idleRss = Object.fromEntries(servers.map((server) => [server.label, memory(server.pid).rssBytes]));

    const plan = measurementPlan(options, session, "ascending");
    const measurements = await measureAlternating(servers, plan, ids, (line) => process.stdout.write(`${line}\n`));
    const summaries = summarise(measurements, SERVER_LABELS["bare-express"]);
    // The published run says where the server's CPU goes, so the next lever is visible beside the figures: one
    // more start of the built server, under the profiler, after the measured rounds (not in quick mode).
    const profiled = options.mode === "compare" && chosen.includes("plant-store");
    const stages = profiled
      ? await profileStages(session, {
          connections: 50,
          warmupSeconds: options.warmupSeconds,
          seconds: options.seconds,
        })
      : undefined;

    const charts = await compareCharts(servers, summaries);
    const markdown = compareMarkdown({ options, session, compared, measurements, summaries, stages, idleRss });
    writeOutputs(options.outDir, {
      "benchmarks.md": markdown,
      "benchmarks.svg": charts.throughputSvg,
      "benchmarks-cpu.svg": charts.cpuSvg,
      "benchmarks.json": JSON.stringify({ answers, idleRss, summaries, measurements }, null, 2),
    });
    return {
      answers,
      measurements,
      files: ["benchmarks.md", "benchmarks.svg", "benchmarks-cpu.svg", "benchmarks.json"],
    };
  });
}

/** Starts the chosen servers, (1) on PostgreSQL and the variants, and the OTLP receiver a variant names. */
async function startCompared(session: Session, options: BenchOptions): Promise<ComparedServers> {
  const servers: RunningServer[] = [];
  const chosen = ORDER.filter(
    (key) => options.servers.length === 0 || options.servers.includes(key) || key === "bare-express",
  );
  // On PostgreSQL (1) serves a database of its own, made for this run; beside SQLite it is one more server.
  const onSqlite = options.databases.includes("sqlite");
  const postgres =
    options.databases.includes("postgres") && chosen.includes("plant-store")
      ? await createScratchDatabase(options.postgresUrl, "plant_store_bench").catch((error: unknown) => {
          throw new Error(
            `--postgres-url ${redacted(options.postgresUrl)}: ${error instanceof Error ? error.message : String(error)}`,
          );
        })
      : undefined;
  if (postgres) {
    session.onClose(() => postgres.drop());
    session.environment.PostgreSQL =
      `PostgreSQL ${postgres.serverVersion} at ${postgres.host}:${postgres.port}, database ${postgres.name}, made for this run and ` +
      "dropped after it (its processes are not pinned, and their CPU is not in (1)'s)";
  }
  for (const key of chosen) {
    if (key === "plant-store" && !onSqlite) continue;
    servers.push(await session.start({ key, name: key }));
  }
  if (postgres) {
    servers.splice(
      onSqlite ? 1 : 0,
      0,
      await session.start({
        key: "plant-store",
        name: "plant-store-postgres",
        label: onSqlite ? POSTGRES_LABEL : undefined,
        env: { DATABASE_URL: postgres.url },
      }),
    );
  }
  // A variant whose environment names $OTLP_SINK exports its traces to a receiver the bench runs on loopback.
  const needsSink = options.variants.some((variant) =>
    Object.values(variant.env ?? {}).some((value) => value.includes(OTLP_SINK)),
  );
  const sink = needsSink ? await startOtlpSink() : undefined;
  if (sink) session.onClose(() => sink.close());
  for (const [index, variant] of options.variants.entries()) {
    const env = Object.fromEntries(
      Object.entries(variant.env ?? {}).map(([name, value]) => [
        name,
        sink ? value.replaceAll(OTLP_SINK, sink.url) : value,
      ]),
    );
    servers.push(
      await session.start({
        key: "plant-store",
        name: `variant-${index}`,
        label: `(1) variant: ${variant.label}`,
        main: variant.main,
        env,
        nodeArgs: variant.nodeArgs,
      }),
    );
  }
  return { chosen, servers, onSqlite, postgres, sink };
}

/** The URL without its password, for an error message. */
function redacted(text: string): string {
  const url = new URL(text);
  if (url.password !== "") url.password = "***";
  return url.toString();
}
