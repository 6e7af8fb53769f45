import type { ScratchDatabase } from "@plant-store/test-support/scratch-postgres";
import { barChartSvg } from "../chart.js";
import { floorMarkdown, TARGET_CPU_RATIO } from "../floor.js";
import type { Measurement, Summary } from "../measure.js";
import { summarise } from "../measure.js";
import type { BenchOptions, Variant } from "../options.js";
import type { OtlpSink } from "../otlp-sink.js";
import {
  cpuRatioTarget,
  header,
  pairedCpuRatio,
  pairedRatio,
  rawTable,
  ratioTarget,
  spreadText,
  summaryTable,
  type Target,
  targetTable,
  threadCpuTable,
} from "../report.js";
import {
  DEPLOYED_NODE_FLAGS,
  type RunningServer,
  SERVER_LABELS,
  SERVER_SHORT_LABELS,
  type ServerKey,
} from "../servers.js";
import type { Session } from "../session.js";
import { type StageProfile, stageProfileMarkdown } from "../stage-profile.js";

export const ORDER: ServerKey[] = [
  "plant-store",
  "bare-express",
  "bare-node-http",
  "fastify-straightforward",
  "fastify-tuned",
  "express-as-served",
];
export const POSTGRES_LABEL = "(1) Plant Store on PostgreSQL";
const MIB = 2 ** 20;

/** The servers a compare run measures, in the order it loads them, and what it started for them. */
export interface ComparedServers {
  chosen: ServerKey[];
  servers: RunningServer[];
  onSqlite: boolean;
  postgres: ScratchDatabase | undefined;
  sink: OtlpSink | undefined;
}

/** Everything the compare report is written from. */
export interface CompareFigures {
  options: BenchOptions;
  session: Session;
  compared: ComparedServers;
  measurements: Measurement[];
  summaries: Summary[];
  stages: StageProfile | undefined;
  idleRss: Record<string, number>;
}

/** The throughput and CPU-per-request bar charts (medians of rounds), by each server's short label. */
export async function compareCharts(
  servers: RunningServer[],
  summaries: Summary[],
): Promise<{ throughputSvg: string; cpuSvg: string }> {
  const shortLabel = new Map<string, string>(servers.map((server) => [server.label, server.label]));
  for (const key of ORDER) shortLabel.set(SERVER_LABELS[key], SERVER_SHORT_LABELS[key]);
  const bars = (value: (s: Summary) => number) =>
    summaries.map((s) => ({ server: shortLabel.get(s.label)!, connections: s.connections, value: value(s) }));
  const throughputSvg = await barChartSvg(
    "POST /plants throughput (median of rounds)",
    "requests per second",
    bars((s) => Math.round(s.requestsPerSecond)),
  );
  const cpuSvg = await barChartSvg(
    "Server CPU time per request (median of rounds; lower is better)",
    "microseconds",
    bars((s) => Math.round(s.cpuMicrosPerRequest)),
  );
  return { throughputSvg, cpuSvg };
}

/**
 * The targets on each supported Node: ahead of the tuned peer by a quarter in throughput and a fifth in CPU per
 * request, at least bare Express's throughput, and the latency and memory caps.
 */
function compareTargets({ options, compared, measurements, summaries }: CompareFigures): Target[] {
  const { chosen } = compared;
  const full = SERVER_LABELS["plant-store"];
  const targets: Target[] = [];
  const throughputGoals: [ServerKey, string, number][] = [
    ["fastify-tuned", "(5) tuned peer", 1.25],
    ["bare-express", "(2) bare Express", 1],
    ["fastify-straightforward", "(4) straightforward peer", 5],
  ];
  const ofBoth = (key: ServerKey) => chosen.includes(key) && chosen.includes("plant-store");
  for (const connections of options.connections) {
    for (const [key, name, goal] of throughputGoals) {
      if (!ofBoth(key)) continue;
      const ratio = pairedRatio(measurements, full, SERVER_LABELS[key], connections);
      targets.push(ratioTarget(`(1) req/s vs ${name}, ${connections} connections`, ratio, goal));
    }
    if (ofBoth("fastify-tuned")) {
      const ratio = pairedCpuRatio(measurements, full, SERVER_LABELS["fastify-tuned"], connections);
      targets.push(
        cpuRatioTarget(`(1) CPU per request vs (5) tuned peer, ${connections} connections`, ratio, TARGET_CPU_RATIO),
      );
    }
  }
  const ofFull = summaries.filter((s) => s.label === full);
  const at50 = ofFull.find((s) => s.connections === 50);
  if (at50)
    targets.push({ what: "(1) p99 at 50 connections", goal: "<= 10 ms", measured: `${at50.p99Ms.toFixed(2)} ms` });
  const peakRss = Math.max(...ofFull.map((s) => s.peakRssBytes));
  if (ofFull.length > 0)
    targets.push({
      what: "(1) peak RSS under load",
      goal: "<= 150 MiB",
      measured: `${(peakRss / MIB).toFixed(0)} MiB`,
    });
  return targets;
}

/** What the CPU and throughput targets leave once node:http and the commit are paid, from this run's figures. */
function targetFloor({ compared, measurements, stages }: CompareFigures): string[] | undefined {
  const { chosen } = compared;
  const floorServers: ServerKey[] = ["plant-store", "fastify-tuned", "bare-express", "bare-node-http"];
  if (!floorServers.every((key) => chosen.includes(key))) return undefined;
  return floorMarkdown(
    measurements,
    {
      server: SERVER_LABELS["plant-store"],
      tunedPeer: SERVER_LABELS["fastify-tuned"],
      bareExpress: SERVER_LABELS["bare-express"],
      bareNodeHttp: SERVER_LABELS["bare-node-http"],
      expressAsServed: chosen.includes("express-as-served") ? SERVER_LABELS["express-as-served"] : undefined,
    },
    stages,
  );
}

/** The report's "What runs": the load, each server, and how the figures are taken. */
function whatRuns({ options, compared }: CompareFigures): string[] {
  const { onSqlite, postgres, sink } = compared;
  return [
    "## What runs",
    "",
    'wrk (one thread, keep-alive) posts `{"id": <unique>, "name": "Monstera", "tag": "tropical"}` to `POST /plants` with a',
    "valid HS256 bearer token; every id is sent once per run. Each server is its own process, started once and",
    "measured in turn; any non-2xx answer or socket error stops the benchmark.",
    "",
    "1. **Plant Store**: the built `apps/server/dist/main.js` in production mode: bearer auth, lossless JSON body,",
    `   contract validation, ${onSqlite ? "durable SQLite (WAL, `synchronous=FULL`, group commit)" : "PostgreSQL (group commit)"}, one log line per request at`,
    `   info into a file; Node started with \`${DEPLOYED_NODE_FLAGS.join(" ")}\` and \`MALLOC_ARENA_MAX=2\`, as docs/deploying.md starts it.`,
    "2. **Bare Express 5** with `express.json()` answering a fixed JSON: the framework floor (`bench/baselines/bare-express.ts`).",
    "3. **Bare `node:http`** answering a fixed JSON: the platform limit (`bench/baselines/bare-node-http.ts`).",
    "4. **Fastify 5 peer, straightforward**: jsonwebtoken HS256 with the secret as a string, JSON-schema body, one",
    "   durable node:sqlite commit per request, Fastify's default request logs at info into a file",
    "   (`bench/baselines/fastify-straightforward.ts`).",
    "5. **Fastify 5 peer, tuned**: the HS256 key as a KeyObject, group commit, one log line per request",
    "   (`bench/baselines/fastify-tuned.ts`).",
    "6. **Express as Plant Store runs it**: Express 5 with the built server's Express settings, request-path tricks",
    "   (`apps/server/src/runtime-internals/express-prototypes.ts`, `json-response-fast-path.ts`) and lossless body reader,",
    "   answering a fixed JSON, started as (1) is: the least the design card's framework costs the server",
    "   (`bench/baselines/express-as-served.ts`).",
    ...(postgres && onSqlite
      ? [
          `- **${POSTGRES_LABEL}**: the same build with \`DATABASE_URL\` naming a fresh PostgreSQL database (group commit on a pool of 10).`,
        ]
      : []),
    ...options.variants.map(
      (variant) =>
        `- **(1) variant: ${variant.label}**: ${variant.main ? `the build at \`${variant.main}\`` : `the same build with ${variantSwitches(variant)}`}.`,
    ),
    ...(sink
      ? [
          `- The OTLP/HTTP receiver on loopback (in the bench's own process) acknowledged ${sink.received().requests} export requests ` +
            `(${(sink.received().bytes / MIB).toFixed(1)} MiB) over the run.`,
        ]
      : []),
    "",
    "CPU us/req is the server process's user + system CPU time (from `/proc/<pid>/stat`) over a run divided by the",
    "requests served. Peak RSS is the process's high-water mark (`VmHWM`). Ratios are paired: each round's",
    "throughput divided by the floor's in the same round, then the median (min–max) over rounds. CPU efficiency is",
    "the floor's CPU time per request over the server's, paired the same way: what the throughput ratio would be",
    "if both were CPU-bound on their core, and far less disturbed than req/s by other load on a shared machine",
    "(durable servers also wait for fsync, which other processes' disk traffic slows down).",
    "",
  ];
}

/** PostgreSQL beside SQLite and the variants (a traced build, another build), each against (1) on SQLite. */
function againstFull({ options, compared, measurements, summaries }: CompareFigures): string[] {
  const full = SERVER_LABELS["plant-store"];
  const beside = summaries.some((s) => s.label === full)
    ? compared.servers.map((server) => server.label).filter((label) => label.startsWith("(1) ") && label !== full)
    : [];
  if (beside.length === 0) return [];
  return [
    "## Against (1)",
    "",
    "Each other build or store of Plant Store over (1), paired round by round: median (min–max).",
    "",
    "| Server | Connections | req/s | CPU per request (server process) | p99 (medians) |",
    "|---|---|---|---|---|",
    ...beside.flatMap((label) =>
      options.connections.map((connections) => {
        const p99 = (of: string) =>
          summaries.find((s) => s.label === of && s.connections === connections)!.p99Ms.toFixed(2);
        return (
          `| ${label} | ${connections} | ${spreadText(pairedRatio(measurements, label, full, connections))} | ` +
          `${spreadText(pairedCpuRatio(measurements, label, full, connections))} | ${p99(label)} ms against ${p99(full)} ms |`
        );
      }),
    ),
    "",
  ];
}

/** The report's "Results": idle memory, the tables against both floors, CPU by thread, raw runs and stages. */
function results({ options, compared, measurements, summaries, stages, idleRss }: CompareFigures): string[] {
  const { chosen, servers } = compared;
  // Every server against the platform's limit as well as against the framework floor.
  const toPlatform = chosen.includes("bare-node-http")
    ? summarise(measurements, SERVER_LABELS["bare-node-http"])
    : undefined;
  return [
    "## Results",
    "",
    "Idle RSS, each server after its start and one create, before any load: " +
      servers.map((server) => `${server.label} ${(idleRss[server.label]! / MIB).toFixed(0)} MiB`).join("; ") +
      ".",
    "",
    ...summaryTable(summaries, "(2)"),
    ...(toPlatform
      ? ["**Against the platform limit, (3) bare node:http:**", "", ...summaryTable(toPlatform, "(3)")]
      : []),
    ...threadCpuTable(measurements),
    ...rawTable(measurements),
    ...(stages
      ? [
          "## CPU per request by stage",
          "",
          `(1) once more, in a process of its own under \`node --cpu-prof\` after the rounds above, at ${stages.connections} connections for a`,
          `${options.warmupSeconds} s warm-up and ${options.seconds} s measured. Each sample counts for the stage whose code was running, found by`,
          "file from the running function out to its callers (`bench/src/cpu-profile-stages.ts`; `--mode profile` lists the",
          "rules). Compare shares rather than absolute figures: the profiler adds its own cost.",
          "",
          ...stageProfileMarkdown(stages),
        ]
      : []),
  ];
}

/** benchmarks.md: the header, what runs, the targets, what they leave, the other builds against (1), the results. */
export function compareMarkdown(figures: CompareFigures): string {
  const { options, session } = figures;
  const floor = targetFloor(figures);
  return [
    ...header({
      title: "Plant Store benchmark: POST /plants side by side",
      command: options.command,
      startedAt: session.startedAt,
      environment: session.environment,
      pinning: session.pin.description,
      plan:
        `${options.connections.join(" and ")} connections; per server and level a ${options.warmupSeconds} s warm-up, then ` +
        `${options.rounds} rounds of ${options.seconds} s in alternating order`,
      notes: options.notes,
    }),
    ...whatRuns(figures),
    "![Throughput per server](benchmarks.svg)",
    "",
    "![Server CPU time per request](benchmarks-cpu.svg)",
    "",
    "## Targets",
    "",
    ...targetTable(compareTargets(figures)),
    ...(floor ? ["## What the CPU target leaves", "", ...floor] : []),
    ...againstFull(figures),
    ...results(figures),
    "Other modes (`--mode prefill`, `soak`, `profile`, `ab`, `starts`) write their own reports next to this one;",
    "bench/README.md says what each measures, docs/performance.md what the figures mean for a deployment.",
    "",
  ].join("\n");
}

/** A same-build variant's difference, as the report states it: its extra environment and Node flags. */
function variantSwitches(variant: Variant): string {
  const env = Object.entries(variant.env ?? {}).map(([name, value]) => `\`${name}=${value}\``);
  const flags = (variant.nodeArgs ?? []).map((flag) => `\`${flag}\``);
  return [...env, ...flags].join(", ");
}
