import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { acceptProbe } from "../accept-probe.js";
import { pinned } from "../cpu-pinning.js";
import { type CpuCap, cpuCap, loadPrecedence } from "@plant-store/test-support/cpu-cap";
import { checkAnswers, closedLoop, IdBlocks } from "../measure.js";
import type { FleetResult } from "../client-fleet-load.js";
import type { PhaseResult } from "../open-loop.js";
import { cpuSeconds } from "../process-stats.js";
import type { BenchOptions } from "../options.js";
import { header } from "../report.js";
import type { RunningServer, ServerKey } from "../servers.js";
import { type Session, withSession, writeOutputs } from "../session.js";
import { median } from "../stats.js";

const GENERATOR = fileURLToPath(new URL("../open-loop-load.js", import.meta.url));
const FLEET = fileURLToPath(new URL("../client-fleet-load.js", import.meta.url));
const run = promisify(execFile);

/** A pod's CPU limit as issue 48 sets its targets: a fifth of a core, in 10 ms periods. */
const CAP_SHARE = 0.2;
/**
 * The client fleet's row: a tenth of a core, so that one generator core running the real client (undici, retries,
 * timers: far more CPU per call than the raw generator) can keep 4x the server's capacity on schedule. (A smaller
 * share needs a quota under a 10 ms period's 1 ms minimum, and in longer periods the server served 24 req/s.)
 */
const FLEET_CAP_SHARE = 0.1;
const FLEET_CAP_PERIOD_US = 10_000;
const FLEET_CLIENTS = 16;
const FLEET_LEVEL = 4;
const FLEET_SECONDS = 15;
/** Goodput is counted from this second of the fleet's schedule on: the clients' own state (pools, budgets) settles first. */
const FLEET_STEADY_FROM_SECONDS = 5;
const CAP_PERIOD_US = 10_000;
const CAPACITY_CONNECTIONS = 50;
const DEADLINE_MS = 2_000;
const LEVELS = [1.5, 2, 4];
const HALF_SECONDS = 10;
const RECOVERY_SECONDS = 5;
/** "Normal latency" once the load drops: p99 of the 2xx answers under this, nothing missed. */
const NORMAL_P99_MS = 250;

interface Contender {
  name: string;
  label: string;
  key: ServerKey;
  env?: Record<string, string>;
  /** Refuses its own closed loop, so its capacity is left out of the round's C: the contender it is a variant of. */
  capacityFrom?: string;
}

// The first design (a refusal share capped at the excess) is gone from the server, so it has no row here; its
// figures are in the overload issue's notes.
const CONTENDERS: Contender[] = [
  {
    name: "queue",
    label: "Plant Store, admission control (CoDel queue, default settings)",
    key: "plant-store",
    env: { ADMISSION_CONTROL: "true" },
  },
  { name: "off", label: "Plant Store, admission control off", key: "plant-store", env: { ADMISSION_CONTROL: "false" } },
  { name: "tuned", label: "Fastify peer, tuned", key: "fastify-tuned" },
  {
    name: "under-pressure",
    label: "Fastify peer, tuned + @fastify/under-pressure (README's event-loop settings)",
    key: "fastify-tuned",
    env: { UNDER_PRESSURE: "readme" },
    capacityFrom: "tuned",
  },
];

/** Run only when --servers names them: the measurement behind LISTEN_BACKLOG's default. */
const OPT_IN: Contender[] = [
  {
    name: "queue-backlog-4096",
    label: "Plant Store, admission control, LISTEN_BACKLOG=4096",
    key: "plant-store",
    env: { ADMISSION_CONTROL: "true", LISTEN_BACKLOG: "4096" },
  },
];

/** One level of one round for one server, as the report shows it. */
export interface LevelFigures {
  level: string;
  offeredPerSecond: number;
  goodputPerSecond: number;
  goodputShare: number;
  p50Ms: number | undefined;
  p99Ms: number | undefined;
  refusedP99Ms: number | undefined;
  refusedShare: number;
  missedShare: number;
  /** Of the requests sent in the level: missed waiting in the generator's pool, connecting, sent; transport errors. */
  missedWaitingShare: number;
  missedConnectingShare: number;
  missedSentShare: number;
  errors: number;
  /** Connections the generator opened per second of the level (a request that finds none idle opens one). */
  connectionsPerSecond: number;
  /** A refusal's CPU over a served request's (the capacity run's CPU per 2xx): undefined with under 100 refusals. */
  refusalCostShare: number | undefined;
  cpuMicrosPerServed: number;
  peakRssMiB: number;
  /** Seconds from the drop to half capacity until p99 stays under 250 ms with nothing missed; undefined if never. */
  recoverySeconds: number | undefined;
}

export interface OverloadRun {
  contender: string;
  round: number;
  /** The round's C, which the levels are multiples of, and this server's own closed-loop capacity. */
  capacityPerSecond: number;
  ownCapacityPerSecond: number;
  /** The server's CPU (all threads) per 2xx in the closed-loop capacity run, and what that run refused. */
  cpuMicrosPerServedClosedLoop: number;
  closedLoopNon2xx: number;
  throttledSeconds: number;
  levels: LevelFigures[];
}

function percentile(values: number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function recoverySeconds(after: PhaseResult): number | undefined {
  const bad = (w: PhaseResult["windows"][number]) => w.missed > 0 || (w.p99Ms !== undefined && w.p99Ms > NORMAL_P99_MS);
  let lastBad = -1;
  after.windows.forEach((window, index) => {
    if (bad(window)) lastBad = index;
  });
  if (lastBad === after.windows.length - 1) return undefined;
  return ((lastBad + 1) * after.seconds) / after.windows.length;
}

function figures(
  level: string,
  phase: PhaseResult,
  capacity: number,
  servedCpuMicros: number,
  after: PhaseResult | undefined,
): LevelFigures {
  const served = phase.okLatenciesMs.length;
  const refused = phase.refusedLatenciesMs.length;
  const refusalCpuMicros = (phase.serverCpuSeconds * 1e6 - served * servedCpuMicros) / Math.max(1, refused);
  return {
    level,
    offeredPerSecond: phase.rate,
    goodputPerSecond: served / phase.seconds,
    goodputShare: served / phase.seconds / capacity,
    p50Ms: percentile(phase.okLatenciesMs, 50),
    p99Ms: percentile(phase.okLatenciesMs, 99),
    refusedP99Ms: percentile(phase.refusedLatenciesMs, 99),
    refusedShare: phase.refusedLatenciesMs.length / phase.sent,
    missedShare: phase.missed / phase.sent,
    missedWaitingShare: phase.missedWaiting / phase.sent,
    missedConnectingShare: phase.missedConnecting / phase.sent,
    missedSentShare: phase.missedSent / phase.sent,
    errors: phase.errors,
    connectionsPerSecond: phase.connectionsOpened / phase.seconds,
    refusalCostShare: refused >= 100 && servedCpuMicros > 0 ? refusalCpuMicros / servedCpuMicros : undefined,
    cpuMicrosPerServed: (phase.serverCpuSeconds * 1e6) / Math.max(1, served),
    peakRssMiB: phase.peakRssBytes / 2 ** 20,
    recoverySeconds: after ? recoverySeconds(after) : undefined,
  };
}

async function openLoop(
  session: Session,
  server: RunningServer,
  firstId: number,
  phases: { rate: number; seconds: number }[],
): Promise<PhaseResult[]> {
  const spec = phases.map((p) => `${Math.round(p.rate)}:${p.seconds}`).join(",");
  const [command, args] = pinned(session.pin.load, process.execPath, [
    GENERATOR,
    server.baseUrl,
    session.token,
    String(server.pid),
    String(firstId),
    String(DEADLINE_MS),
    spec,
  ]);
  const total = phases.reduce((sum, p) => sum + p.seconds, 0);
  const { stdout } = await run(command, args, { timeout: (total + 60) * 1000, maxBuffer: 256 * 2 ** 20 });
  const line = /OPEN_LOOP_RESULT (.*)/.exec(stdout)?.[1];
  if (!line) throw new Error(`the open-loop generator printed no result:\n${stdout.slice(0, 2000)}`);
  return JSON.parse(line) as PhaseResult[];
}

/** What every server's runs in one overload mode share: the session, the id blocks and the command's options. */
interface OverloadBench {
  session: Session;
  ids: IdBlocks;
  options: BenchOptions;
}

/** A fresh process of `contender` under `cap` for `body`, stopped after it. */
async function withCappedServer<T>(
  { session }: OverloadBench,
  cap: CpuCap,
  contender: Contender,
  name: string,
  body: (server: RunningServer) => Promise<T>,
): Promise<T> {
  const server = await session.start({ key: contender.key, name, label: contender.label, env: contender.env });
  try {
    cap.add(server.pid);
    return await body(server);
  } finally {
    await server.stop();
  }
}

/** A contender's closed-loop capacity in one round, from its own process. */
interface Capacity {
  capacity: number;
  cpuMicrosPerServed: number;
  non2xx: number;
}

async function measureCapacity(
  bench: OverloadBench,
  cap: CpuCap,
  contender: Contender,
  round: number,
): Promise<Capacity> {
  return withCappedServer(bench, cap, contender, `${contender.name}-capacity-${round}`, async (server) => {
    const answer = await checkAnswers(server, bench.session.token, bench.ids.take());
    if (answer.status !== 200) throw new Error(`${contender.label} answered ${answer.status}: ${answer.body}`);
    return capacityRun(bench, server);
  });
}

/**
 * The round's C, which every contender is offered multiples of: the median of the contenders' closed-loop
 * capacities, leaving out a peer that refuses its own closed loop unless it runs alone. Each server's own C moves
 * between runs at this cap by more than servers differ, so levels from each one's own C would offer neighbouring
 * rows different loads.
 */
function roundCapacity(capacities: Map<string, Capacity>): number {
  const all = [...capacities.entries()];
  const serving = all.filter(([name]) => CONTENDERS.find((c) => c.name === name)?.capacityFrom === undefined);
  return median((serving.length > 0 ? serving : all).map(([, c]) => c.capacity));
}

/** One server's open loop, in a fresh process after a warm-up: half of C, then each level followed by half again. */
async function runContender(
  bench: OverloadBench,
  cap: CpuCap,
  contender: Contender,
  round: number,
  own: Capacity,
  capacity: number,
): Promise<OverloadRun> {
  const { session, ids, options } = bench;
  return withCappedServer(bench, cap, contender, `${contender.name}-${round}`, async (server) => {
    await closedLoop(session, server, ids, CAPACITY_CONNECTIONS, options.warmupSeconds);
    const throttledBefore = cap.throttled().seconds;
    const phases = [{ rate: capacity / 2, seconds: HALF_SECONDS }];
    for (const level of LEVELS)
      phases.push(
        { rate: capacity * level, seconds: options.seconds },
        { rate: capacity / 2, seconds: RECOVERY_SECONDS },
      );
    const results = await openLoop(session, server, ids.take(), phases);
    const level = (name: string, index: number, after: PhaseResult | undefined) =>
      figures(name, results[index]!, capacity, own.cpuMicrosPerServed, after);
    const levels = [
      level("0.5x", 0, undefined),
      ...LEVELS.map((l, i) => level(`${l}x`, 1 + 2 * i, results[2 + 2 * i])),
    ];
    const run: OverloadRun = {
      contender: contender.name,
      round,
      capacityPerSecond: capacity,
      ownCapacityPerSecond: own.capacity,
      cpuMicrosPerServedClosedLoop: own.cpuMicrosPerServed,
      closedLoopNon2xx: own.non2xx,
      throttledSeconds: cap.throttled().seconds - throttledBefore,
      levels,
    };
    process.stdout.write(
      `round ${round + 1} ${contender.label}: C ${capacity.toFixed(0)}/s (own ${own.capacity.toFixed(0)}); ${levels.map((l) => `${l.level} ${l.goodputShare.toFixed(2)}x p99 ${l.p99Ms?.toFixed(0)} missed ${(l.missedShare * 100).toFixed(1)}% r ${l.refusalCostShare?.toFixed(2) ?? "-"}`).join("; ")}\n`,
    );
    return run;
  });
}

/** Warm-up, then the closed loop at 50 connections: 2xx per second, and the server's CPU per 2xx over it. */
async function capacityRun({ session, ids, options }: OverloadBench, server: RunningServer): Promise<Capacity> {
  const load = (seconds: number) => closedLoop(session, server, ids, CAPACITY_CONNECTIONS, seconds);
  await load(options.warmupSeconds);
  const cpuBefore = cpuSeconds(server.pid);
  const measured = await load(options.seconds);
  const cpu = cpuSeconds(server.pid) - cpuBefore;
  const served = measured.requests - measured.non2xx;
  return {
    capacity: served / measured.seconds,
    cpuMicrosPerServed: (cpu * 1e6) / Math.max(1, served),
    non2xx: measured.non2xx,
  };
}

/** The 4x row through the project's client: one server, its capacity at the fleet's cap, then the fleet's schedule. */
export interface FleetRun {
  contender: string;
  round: number;
  capacityPerSecond: number;
  result: FleetResult;
}

async function runFleet(bench: OverloadBench, cap: CpuCap, contender: Contender, round: number): Promise<FleetRun> {
  const { session, ids } = bench;
  return withCappedServer(bench, cap, contender, `fleet-${contender.name}-${round}`, async (server) => {
    const { capacity } = await capacityRun(bench, server);
    const args = [
      FLEET,
      server.baseUrl,
      session.token,
      String(server.pid),
      String(ids.take()),
      String(DEADLINE_MS),
      String(FLEET_CLIENTS),
      String(Math.round(capacity * FLEET_LEVEL)),
      String(FLEET_SECONDS),
    ];
    const [command, commandArgs] = pinned(session.pin.load, process.execPath, args);
    const { stdout, stderr } = await run(command, commandArgs, {
      timeout: (FLEET_SECONDS + 60) * 1000,
      maxBuffer: 256 * 2 ** 20,
    });
    const line = /FLEET_RESULT (.*)/.exec(stdout)?.[1];
    if (!line)
      throw new Error(`the client fleet printed no result:\n${stdout.slice(0, 2000)}\n${stderr.slice(0, 2000)}`);
    const fleetRun: FleetRun = {
      contender: contender.name,
      round,
      capacityPerSecond: capacity,
      result: JSON.parse(line) as FleetResult,
    };
    const f = fleetFigures(fleetRun);
    process.stdout.write(
      `round ${round + 1} fleet, ${contender.label}: capacity ${capacity.toFixed(0)}/s; goodput from ${FLEET_STEADY_FROM_SECONDS} s ${f.steadyGoodputShare.toFixed(2)}x; timeouts ${(f.timeoutShare * 100).toFixed(1)}%; ${JSON.stringify(fleetRun.result.outcomes)}\n`,
    );
    return fleetRun;
  });
}

function fleetFigures({ capacityPerSecond, result }: FleetRun) {
  const steady = result.okPerSecond.slice(FLEET_STEADY_FROM_SECONDS);
  const timeouts = result.outcomes.PlantStoreTimeoutError ?? 0;
  return {
    steadyGoodputShare: steady.reduce((a, b) => a + b, 0) / Math.max(1, steady.length) / capacityPerSecond,
    timeoutShare: timeouts / result.calls,
    okShare: result.okLatenciesMs.length / result.calls,
  };
}

/** A fleet run as the JSON keeps it: its latencies as p50 and p99 per outcome, not one number per call. */
function compactFleetRun({ result, ...run }: FleetRun) {
  const { okLatenciesMs, otherLatenciesMs, ...rest } = result;
  const summary = (values: number[]) => ({
    count: values.length,
    p50Ms: percentile(values, 50),
    p99Ms: percentile(values, 99),
  });
  return {
    ...run,
    result: {
      ...rest,
      ok: summary(okLatenciesMs),
      others: Object.fromEntries(Object.entries(otherLatenciesMs).map(([key, values]) => [key, summary(values)])),
    },
  };
}

const ms = (value: number | undefined) => (value === undefined ? "–" : value.toFixed(0));
const pct = (value: number, digits = 1) => `${(value * 100).toFixed(digits)}%`;
const range = (values: number[], digits: number, unit = "") => {
  const sorted = [...values].sort((a, b) => a - b);
  const text = (v: number) => `${v.toFixed(digits)}${unit}`;
  return sorted.length === 1
    ? text(sorted[0]!)
    : `${text(median(sorted))} (${text(sorted[0]!)}–${text(sorted.at(-1)!)})`;
};

function table(runs: OverloadRun[]): string[] {
  const rows: string[] = [];
  for (const level of ["0.5x", ...LEVELS.map((l) => `${l}x`)]) {
    for (const contender of [...CONTENDERS, ...OPT_IN]) {
      const figs = runs
        .filter((r) => r.contender === contender.name)
        .map((r) => r.levels.find((l) => l.level === level)!);
      if (figs.length === 0) continue;
      const each = (pick: (l: LevelFigures) => string) => figs.map(pick).join(" / ");
      rows.push(
        `| ${level} | ${contender.label} | ${range(
          figs.map((l) => l.goodputShare),
          2,
          "x",
        )} | ${each((l) => ms(l.p50Ms))} | ${each((l) => ms(l.p99Ms))} | ${each((l) => `${pct(l.refusedShare, 0)} (${ms(l.refusedP99Ms)})`)} | ${each((l) => pct(l.missedShare, 2))} | ${each((l) => `${pct(l.missedWaitingShare)}/${pct(l.missedConnectingShare)}/${pct(l.missedSentShare)}/${l.errors}`)} | ${each((l) => l.connectionsPerSecond.toFixed(0))} | ${each((l) => l.refusalCostShare?.toFixed(2) ?? "–")} | ${each((l) => ms(l.cpuMicrosPerServed))} | ${each((l) => ms(l.peakRssMiB))} | ${each((l) => (l.level === "0.5x" ? "" : l.recoverySeconds === undefined ? "> 5 s" : `${l.recoverySeconds.toFixed(2)} s`))} |`,
      );
    }
  }
  return [
    "| Load | Server | goodput / C | p50 2xx ms | p99 2xx ms | refused (p99 ms) | unanswered at 2 s | of them: pool / connecting / sent; transport errors | connections opened /s | r | CPU us / 2xx | peak RSS MiB | back to normal |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows,
  ];
}

function fleetTable(fleetRuns: FleetRun[]): string[] {
  const rows = fleetRuns.map((run) => {
    const f = fleetFigures(run);
    const others = Object.entries(run.result.outcomes)
      .map(([key, count]) => `${key}: ${count} (p99 ${ms(percentile(run.result.otherLatenciesMs[key] ?? [], 99))} ms)`)
      .join("; ");
    return `| ${CONTENDERS.find((c) => c.name === run.contender)!.label} | ${run.round + 1} | ${run.capacityPerSecond.toFixed(0)} | ${run.result.calls} | ${f.steadyGoodputShare.toFixed(2)}x | ${pct(f.okShare)} | ${ms(percentile(run.result.okLatenciesMs, 99))} | ${pct(f.timeoutShare, 2)} | ${others || "–"} | ${run.result.longestSettleMs.toFixed(0)} ms, ${run.result.settledLate} late |`;
  });
  return [
    `| Server | round | C at ${FLEET_CAP_SHARE} core | calls | goodput / C from ${FLEET_STEADY_FROM_SECONDS} s | 200 | p99 200 ms | timed out | other outcomes (p99) | longest settle, late (> timeout + 100 ms) |`,
    "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|",
    ...rows,
  ];
}

/** Per round, the queue's goodput over each other contender's at each overload level (both in the same round). */
function pairedGoodput(runs: OverloadRun[], rounds: number): string[] {
  const lines: string[] = [];
  for (const other of CONTENDERS.slice(1)) {
    for (const level of LEVELS.map((l) => `${l}x`)) {
      const ratios: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const mine = runs
          .find((r) => r.contender === CONTENDERS[0]!.name && r.round === round)
          ?.levels.find((l) => l.level === level);
        const theirs = runs
          .find((r) => r.contender === other.name && r.round === round)
          ?.levels.find((l) => l.level === level);
        if (mine && theirs && theirs.goodputPerSecond > 0) ratios.push(mine.goodputPerSecond / theirs.goodputPerSecond);
      }
      if (ratios.length > 0)
        lines.push(`| ${other.label} | ${level} | ${ratios.map((r) => r.toFixed(2)).join(" / ")} |`);
    }
  }
  return [
    `| Against | Load | ${CONTENDERS[0]!.label}: goodput (2xx/s) over theirs, per round |`,
    "|---|---|---:|",
    ...lines,
  ];
}

/**
 * Overload under a CPU cap (issue 48): each contender's capacity closed-loop at 50 connections, then an open-loop
 * load at half of it, then 1.5x, 2x and 4x with a 2 s client deadline, each followed by half again; then, per round,
 * 4x through a fleet of the project's clients against the server with and without admission control, at a smaller
 * cap. Contenders alternate within each round; each gets a fresh process and store per round.
 */
export async function overload(options: BenchOptions): Promise<{ files: string[] }> {
  const cap = cpuCap(CAP_SHARE, CAP_PERIOD_US);
  const fleetCap = cpuCap(FLEET_CAP_SHARE, FLEET_CAP_PERIOD_US, "bench-fleet");
  const precedence = loadPrecedence();
  try {
    const accepts = await acceptProbe();
    return await withSession(async (session) => {
      const bench: OverloadBench = { session, ids: new IdBlocks(), options };
      const runs: OverloadRun[] = [];
      const fleetRuns: FleetRun[] = [];
      const fleetFailures: string[] = [];
      // --servers names contenders, and `fleet` for the client fleet's row; all of them by default.
      const chosen = (name: string) => options.servers.length === 0 || options.servers.includes(name);
      for (let round = 0; round < options.rounds; round++) {
        const contenders = [...CONTENDERS, ...OPT_IN.filter((c) => options.servers.includes(c.name))].filter((c) =>
          chosen(c.name),
        );
        const capacities = new Map<string, Capacity>();
        for (const contender of contenders)
          capacities.set(contender.name, await measureCapacity(bench, cap, contender, round));
        if (capacities.size > 0) {
          const capacity = roundCapacity(capacities);
          for (const contender of contenders)
            runs.push(await runContender(bench, cap, contender, round, capacities.get(contender.name)!, capacity));
        }
        if (chosen("fleet")) {
          for (const contender of CONTENDERS.filter((c) => c.key === "plant-store")) {
            try {
              fleetRuns.push(await runFleet(bench, fleetCap, contender, round));
            } catch (error) {
              // The rest of the report stands without this row; the failure is printed and noted.
              const message = error instanceof Error ? error.message.slice(0, 500) : String(error);
              process.stdout.write(`round ${round + 1} fleet, ${contender.label}: failed: ${message}\n`);
              fleetFailures.push(`round ${round + 1}, ${contender.label}: ${message.split("\n")[0]}`);
            }
          }
        }
      }
      const node = `node${process.versions.node.split(".")[0]}`;
      const markdown = [
        ...header({
          title: `Plant Store under overload (${node})`,
          command: options.command,
          startedAt: session.startedAt,
          environment: {
            ...session.environment,
            "CPU cap": cap.description,
            "CPU cap, client fleet": fleetCap.description,
            "CPU precedence": precedence.description,
            "New connections": `libuv ${accepts.libuv} accepted ${accepts.connections} connections opened at once in ${accepts.turnsAccepting} event-loop turns, at most ${accepts.mostInOneTurn} in one (src/accept-probe.ts)`,
          },
          pinning: session.pin.description,
          plan: `per round: each server's closed-loop capacity (2xx/s at ${CAPACITY_CONNECTIONS} connections over ${options.seconds} s after a ${options.warmupSeconds} s warm-up, its own process); the round's C = their median (a peer that refuses its own closed loop left out); then per server, a fresh process, a ${options.warmupSeconds} s closed-loop warm-up and the open loop (src/open-loop-load.ts, ${DEADLINE_MS} ms deadline): ${HALF_SECONDS} s at 0.5x, then ${LEVELS.join("x, ")}x for ${options.seconds} s each, each followed by ${RECOVERY_SECONDS} s at 0.5x; then, at the fleet's cap, C again and ${FLEET_LEVEL}x C for ${FLEET_SECONDS} s through ${FLEET_CLIENTS} @plant-store/client instances (default options, timeoutMs ${DEADLINE_MS}) sharing one open-loop schedule (src/client-fleet-load.ts); ${options.rounds} rounds, servers alternating`,
          notes: options.notes,
        }),
        "Per cell, one figure per round (goodput: median and range). Latencies from each request's scheduled send time. Unanswered at 2 s: of the requests sent in the level, those the deadline passed for, split into never sent (waiting in the generator's pool for a connection), on a connection still connecting, and sent; then connections that failed. Connections opened: by the generator, per second of the level, one for each request that found no idle connection. r: a refusal's server CPU over a served request's, (CPU over the level - 2xx x the capacity run's CPU per 2xx) / refusals / that, with at least 100 refusals. CPU us / 2xx: the server's CPU (/proc, all threads) over the level / its 2xx answers. Back to normal: after the level, until every 250 ms window's 2xx p99 stays under 250 ms with nothing missed. Every server in a round is offered the same multiples of the round's C.",
        "",
        ...table(runs),
        "",
        ...pairedGoodput(runs, options.rounds),
        "",
        `| Server | round | round's C 2xx/s | own closed-loop C 2xx/s, non-2xx, CPU us / 2xx | cap throttled s |`,
        "|---|---:|---:|---:|---:|",
        ...runs.map(
          (r) =>
            `| ${[...CONTENDERS, ...OPT_IN].find((c) => c.name === r.contender)!.label} | ${r.round + 1} | ${r.capacityPerSecond.toFixed(0)} | ${r.ownCapacityPerSecond.toFixed(0)}, ${r.closedLoopNon2xx}, ${r.cpuMicrosPerServedClosedLoop.toFixed(0)} | ${r.throttledSeconds.toFixed(1)} |`,
        ),
        "",
        ...(fleetRuns.length > 0
          ? [`${FLEET_LEVEL}x through the client fleet:`, "", ...fleetTable(fleetRuns), ""]
          : []),
        ...fleetFailures.map((failure) => `Client fleet failed: ${failure}`),
      ].join("\n");
      const files = {
        [`overload-${node}.md`]: markdown,
        [`overload-${node}.json`]: JSON.stringify(
          {
            cap: cap.description,
            fleetCap: fleetCap.description,
            accepts,
            runs,
            fleetRuns: fleetRuns.map(compactFleetRun),
          },
          null,
          2,
        ),
      };
      writeOutputs(options.outDir, files);
      return { files: Object.keys(files) };
    });
  } finally {
    cap.close();
    fleetCap.close();
    precedence.close();
  }
}
