import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { pinned } from "../cpu-pinning.js";
import { type CpuCap, cpuCap } from "../cpu-cap.js";
import { checkAnswers, IdBlocks } from "../measure.js";
import type { PhaseResult } from "../open-loop-load.js";
import type { BenchOptions } from "../options.js";
import { header } from "../report.js";
import type { RunningServer, ServerKey } from "../servers.js";
import { type Session, withSession, writeOutputs } from "../session.js";
import { median } from "../stats.js";
import { runWrk } from "../wrk-load.js";

const GENERATOR = fileURLToPath(new URL("../open-loop-load.js", import.meta.url));
const run = promisify(execFile);

/** A pod's CPU limit as issue 41 set it: a quarter of a core, in 10 ms periods. */
const CAP_SHARE = 0.25;
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
}

const CONTENDERS: Contender[] = [
  { name: "shedding", label: "Plant Store, admission control on", key: "plant-store", env: { ADMISSION_CONTROL: "true" } },
  { name: "before", label: "Plant Store, admission control off (before)", key: "plant-store", env: { ADMISSION_CONTROL: "false" } },
  { name: "tuned", label: "Fastify peer, tuned", key: "fastify-tuned" },
  { name: "under-pressure", label: "Fastify peer, tuned + @fastify/under-pressure (README's event-loop settings)", key: "fastify-tuned", env: { UNDER_PRESSURE: "readme" } },
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
  errors: number;
  cpuMicrosPerServed: number;
  peakRssMiB: number;
  /** Seconds from the drop to half capacity until p99 stays under 250 ms with nothing missed; undefined if never. */
  recoverySeconds: number | undefined;
}

export interface OverloadRun {
  contender: string;
  round: number;
  capacityPerSecond: number;
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

function figures(level: string, phase: PhaseResult, capacity: number, after: PhaseResult | undefined): LevelFigures {
  const served = phase.okLatenciesMs.length;
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
    errors: phase.errors,
    cpuMicrosPerServed: (phase.serverCpuSeconds * 1e6) / Math.max(1, served),
    peakRssMiB: phase.peakRssBytes / 2 ** 20,
    recoverySeconds: after ? recoverySeconds(after) : undefined,
  };
}

async function openLoop(session: Session, server: RunningServer, firstId: number, phases: { rate: number; seconds: number }[]): Promise<PhaseResult[]> {
  const spec = phases.map((p) => `${Math.round(p.rate)}:${p.seconds}`).join(",");
  const [command, args] = pinned(session.pin.load, process.execPath, [GENERATOR, server.baseUrl, session.token, String(server.pid), String(firstId), String(DEADLINE_MS), spec]);
  const total = phases.reduce((sum, p) => sum + p.seconds, 0);
  const { stdout } = await run(command, args, { timeout: (total + 60) * 1000, maxBuffer: 256 * 2 ** 20 });
  const line = /OPEN_LOOP_RESULT (.*)/.exec(stdout)?.[1];
  if (!line) throw new Error(`the open-loop generator printed no result:\n${stdout.slice(0, 2000)}`);
  return JSON.parse(line) as PhaseResult[];
}

/** One server's sequence: capacity closed-loop, then half, then each level followed by half again. */
async function runContender(session: Session, cap: CpuCap, contender: Contender, round: number, ids: IdBlocks, options: BenchOptions): Promise<OverloadRun> {
  const server = await session.start({ key: contender.key, name: `${contender.name}-${round}`, label: contender.label, env: contender.env });
  try {
    cap.add(server.pid);
    const answer = await checkAnswers(server, session.token, ids.take());
    if (answer.status !== 200) throw new Error(`${contender.label} answered ${answer.status}: ${answer.body}`);
    const load = (seconds: number) =>
      runWrk({ baseUrl: server.baseUrl, connections: CAPACITY_CONNECTIONS, token: session.token, firstId: ids.take(), order: "ascending", pin: session.pin.load, seconds });
    await load(options.warmupSeconds);
    const measured = await load(options.seconds);
    const capacity = (measured.requests - measured.non2xx) / measured.seconds;
    const throttledBefore = cap.throttled().seconds;
    const phases = [{ rate: capacity / 2, seconds: HALF_SECONDS }];
    for (const level of LEVELS) phases.push({ rate: capacity * level, seconds: options.seconds }, { rate: capacity / 2, seconds: RECOVERY_SECONDS });
    const results = await openLoop(session, server, ids.take(), phases);
    const levels = [figures("0.5x", results[0]!, capacity, undefined), ...LEVELS.map((level, i) => figures(`${level}x`, results[1 + 2 * i]!, capacity, results[2 + 2 * i]))];
    const run: OverloadRun = { contender: contender.name, round, capacityPerSecond: capacity, throttledSeconds: cap.throttled().seconds - throttledBefore, levels };
    process.stdout.write(
      `round ${round + 1} ${contender.label}: capacity ${capacity.toFixed(0)}/s; ${levels.map((l) => `${l.level} ${l.goodputShare.toFixed(2)}x p99 ${l.p99Ms?.toFixed(0)} missed ${(l.missedShare * 100).toFixed(1)}%`).join("; ")}\n`,
    );
    return run;
  } finally {
    await server.stop();
  }
}

const ms = (value: number | undefined) => (value === undefined ? "–" : value.toFixed(0));
const range = (values: number[], digits: number, unit = "") => {
  const sorted = [...values].sort((a, b) => a - b);
  const text = (v: number) => `${v.toFixed(digits)}${unit}`;
  return sorted.length === 1 ? text(sorted[0]!) : `${text(median(sorted))} (${text(sorted[0]!)}–${text(sorted.at(-1)!)})`;
};

function table(runs: OverloadRun[]): string[] {
  const rows: string[] = [];
  for (const level of ["0.5x", ...LEVELS.map((l) => `${l}x`)]) {
    for (const contender of CONTENDERS) {
      const figs = runs.filter((r) => r.contender === contender.name).map((r) => r.levels.find((l) => l.level === level)!);
      if (figs.length === 0) continue;
      const each = (pick: (l: LevelFigures) => number | undefined) => figs.map(pick).map((v) => ms(v)).join(" / ");
      rows.push(
        `| ${level} | ${contender.label} | ${range(figs.map((l) => l.goodputShare), 2, "x")} | ${each((l) => l.p50Ms)} | ${each((l) => l.p99Ms)} | ${each((l) => l.refusedP99Ms)} | ${figs.map((l) => `${(l.refusedShare * 100).toFixed(0)}%`).join(" / ")} | ${figs.map((l) => `${(l.missedShare * 100).toFixed(2)}%`).join(" / ")} | ${each((l) => l.cpuMicrosPerServed)} | ${each((l) => l.peakRssMiB)} | ${figs.map((l) => (l.level === "0.5x" ? "" : l.recoverySeconds === undefined ? "> 5 s" : `${l.recoverySeconds.toFixed(2)} s`)).join(" / ")} |`,
      );
    }
  }
  return [
    "| Load | Server | goodput / capacity | p50 2xx ms | p99 2xx ms | p99 refusals ms | refused | missed (2 s) | CPU us / served | peak RSS MiB | back to normal |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows,
  ];
}

/** Per round, Plant Store's goodput over each other contender's at each overload level (both in the same round). */
function pairedGoodput(runs: OverloadRun[], rounds: number): string[] {
  const lines: string[] = [];
  for (const other of CONTENDERS.slice(1)) {
    for (const level of LEVELS.map((l) => `${l}x`)) {
      const ratios: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const mine = runs.find((r) => r.contender === "shedding" && r.round === round)?.levels.find((l) => l.level === level);
        const theirs = runs.find((r) => r.contender === other.name && r.round === round)?.levels.find((l) => l.level === level);
        if (mine && theirs && theirs.goodputPerSecond > 0) ratios.push(mine.goodputPerSecond / theirs.goodputPerSecond);
      }
      if (ratios.length > 0) lines.push(`| ${other.label} | ${level} | ${ratios.map((r) => r.toFixed(2)).join(" / ")} |`);
    }
  }
  return ["| Against | Load | Plant Store's goodput (2xx/s) over theirs, per round |", "|---|---|---:|", ...lines];
}

/**
 * Overload under a CPU cap (issue 41): each contender's capacity closed-loop at 50 connections, then an open-loop
 * load at half of it, then 1.5x, 2x and 4x with a 2 s client deadline, each followed by half again. Contenders
 * alternate within each round; each gets a fresh process and store per round.
 */
export async function overload(options: BenchOptions): Promise<{ files: string[] }> {
  const cap = cpuCap(CAP_SHARE, CAP_PERIOD_US);
  try {
    return await withSession(async (session) => {
      const ids = new IdBlocks();
      const runs: OverloadRun[] = [];
      const only = options.servers.length > 0 ? CONTENDERS.filter((c) => options.servers.includes(c.name)) : CONTENDERS;
      for (let round = 0; round < options.rounds; round++) {
        for (const contender of only) runs.push(await runContender(session, cap, contender, round, ids, options));
      }
      const node = `node${process.versions.node.split(".")[0]}`;
      const markdown = [
        ...header({
          title: `Plant Store under overload (${node})`,
          command: options.command,
          startedAt: session.startedAt,
          environment: { ...session.environment, "CPU cap": cap.description },
          pinning: session.pin.description,
          plan: `per server and round: ${options.warmupSeconds} s warm-up, capacity = 2xx/s closed-loop at ${CAPACITY_CONNECTIONS} connections over ${options.seconds} s; then open loop (src/open-loop-load.ts, ${DEADLINE_MS} ms deadline): ${HALF_SECONDS} s at 0.5x, then ${LEVELS.join("x, ")}x for ${options.seconds} s each, each followed by ${RECOVERY_SECONDS} s at 0.5x; ${options.rounds} rounds, servers alternating`,
          notes: options.notes,
        }),
        "Per cell, one figure per round (goodput: median and range). Latencies from each request's scheduled send time. CPU us / served: the server's CPU (/proc, all threads) over the level / its 2xx answers. Back to normal: after the level, until every 250 ms window's 2xx p99 stays under 250 ms with nothing missed.",
        "",
        ...table(runs),
        "",
        ...pairedGoodput(runs, options.rounds),
        "",
        `| Server | round | capacity 2xx/s | cap throttled s |`,
        "|---|---:|---:|---:|",
        ...runs.map((r) => `| ${CONTENDERS.find((c) => c.name === r.contender)!.label} | ${r.round + 1} | ${r.capacityPerSecond.toFixed(0)} | ${r.throttledSeconds.toFixed(1)} |`),
        "",
      ].join("\n");
      const files = { [`overload-${node}.md`]: markdown, [`overload-${node}.json`]: JSON.stringify({ cap: cap.description, runs }, null, 2) };
      writeOutputs(options.outDir, files);
      return { files: Object.keys(files) };
    });
  } finally {
    cap.close();
  }
}
