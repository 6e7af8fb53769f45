import type { BenchOptions } from "./options.js";
import { cpuPerRequest, memory, readCpu, type ThreadCpu } from "./process-stats.js";
import type { RunningServer } from "./servers.js";
import type { Session } from "./session.js";
import { type Spread, median, spread } from "./stats.js";
import { type LoadResult, runWrk } from "./wrk-load.js";

export interface Plan {
  connectionLevels: number[];
  rounds: number;
  warmupSeconds: number;
  seconds: number;
  token: string;
  order: "ascending" | "random";
  loadPin: string[];
}

/** The plan of alternating rounds a mode's options ask for, with the session's token and load-generator core. */
export function measurementPlan(
  options: Pick<BenchOptions, "connections" | "rounds" | "warmupSeconds" | "seconds">,
  session: Pick<Session, "token" | "pin">,
  order: Plan["order"],
): Plan {
  return {
    connectionLevels: options.connections,
    rounds: options.rounds,
    warmupSeconds: options.warmupSeconds,
    seconds: options.seconds,
    token: session.token,
    order,
    loadPin: session.pin.load,
  };
}

export interface Measurement {
  label: string;
  connections: number;
  round: number;
  load: LoadResult;
  cpuMicrosPerRequest: number;
  /** The same CPU time split by thread (main, SQLite writer, V8's helpers, the rest); cpuMicrosPerRequest is their sum. */
  threadCpuMicrosPerRequest: ThreadCpu;
  rssBytes: number;
  peakRssBytes: number;
}

/** Hands out blocks of ids so no two runs (warm-ups included) ever send the same id. */
export class IdBlocks {
  #next: number;
  readonly #size: number;

  constructor(first = 1, size = 100_000_000) {
    this.#size = size;
    this.#next = first;
  }
  take(): number {
    const first = this.#next;
    this.#next += this.#size;
    return first;
  }
}

/**
 * One closed-loop wrk run as the modes load a server: `connections` posting plants with the session's token, ids
 * ascending from a fresh block, wrk on the load generator's core.
 */
export function closedLoop(
  session: Pick<Session, "token" | "pin">,
  server: Pick<RunningServer, "baseUrl">,
  ids: IdBlocks,
  connections: number,
  seconds: number,
): Promise<LoadResult> {
  return runWrk({
    baseUrl: server.baseUrl,
    connections,
    token: session.token,
    firstId: ids.take(),
    order: "ascending",
    pin: session.pin.load,
    seconds,
  });
}

/** A failed request makes every figure meaningless (a 401 is fast): stop the run instead. */
export function requireAllOk(label: string, connections: number, load: LoadResult): void {
  if (load.requests === 0 || load.non2xx > 0 || load.socketErrors > 0) {
    throw new Error(
      `${label} at ${connections} connections: ${load.requests} requests, ${load.non2xx} non-2xx answers, ` +
        `${load.socketErrors} socket errors`,
    );
  }
}

/** One POST through fetch before any load, so a misconfigured server fails loudly with its answer. */
export async function checkAnswers(
  server: RunningServer,
  token: string,
  id: number,
): Promise<{ status: number; body: string }> {
  const response = await fetch(`${server.baseUrl}/plants`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ id, name: "Monstera", tag: "tropical" }),
  });
  const body = await response.text();
  if (response.status !== 200 || JSON.parse(body).name !== "Monstera") {
    throw new Error(`${server.label} answered ${response.status} ${body} to a valid create`);
  }
  return { status: response.status, body };
}

/**
 * Warm-up, then rounds in alternating order (A B C … then … C B A) so the machine's drift over time
 * falls on every server alike; each server's CPU time comes from /proc around its own runs only.
 */
export async function measureAlternating(
  servers: RunningServer[],
  plan: Plan,
  ids: IdBlocks,
  onProgress: (line: string) => void,
): Promise<Measurement[]> {
  const measurements: Measurement[] = [];
  for (const connections of plan.connectionLevels) {
    for (const server of servers) {
      const load = await runWrk({ ...loadOptions(plan, server, connections, ids), seconds: plan.warmupSeconds });
      requireAllOk(server.label, connections, load);
    }
    for (let round = 0; round < plan.rounds; round++) {
      const order = round % 2 === 0 ? servers : [...servers].reverse();
      for (const server of order) {
        const cpuBefore = readCpu(server.pid);
        const load = await runWrk({ ...loadOptions(plan, server, connections, ids), seconds: plan.seconds });
        const cpuAfter = readCpu(server.pid);
        requireAllOk(server.label, connections, load);
        const { rssBytes, peakRssBytes } = memory(server.pid);
        const cpu = cpuPerRequest(cpuBefore, cpuAfter, load.requests);
        const measurement = {
          label: server.label,
          connections,
          round,
          load,
          cpuMicrosPerRequest: cpu.all,
          threadCpuMicrosPerRequest: cpu.byRole,
          rssBytes,
          peakRssBytes,
        };
        measurements.push(measurement);
        onProgress(
          `c=${connections} round ${round + 1}/${plan.rounds} ${server.label}: ${Math.round(load.requestsPerSecond)} req/s, ` +
            `p99 ${load.p99Ms.toFixed(1)} ms, ${measurement.cpuMicrosPerRequest.toFixed(0)} us CPU/req`,
        );
      }
    }
  }
  return measurements;
}

function loadOptions(plan: Plan, server: RunningServer, connections: number, ids: IdBlocks) {
  return {
    baseUrl: server.baseUrl,
    connections,
    token: plan.token,
    firstId: ids.take(),
    order: plan.order,
    pin: plan.loadPin,
  };
}

/** Median over rounds of one figure of one server at one connection level. */
export function medianOf(
  measurements: Measurement[],
  label: string,
  connections: number,
  value: (m: Measurement) => number,
): number {
  return median(measurements.filter((m) => m.label === label && m.connections === connections).map(value));
}

/** Per server and connection level: the medians over rounds and the ratio to the reference, round by round. */
export interface Summary {
  label: string;
  connections: number;
  rounds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  cpuMicrosPerRequest: number;
  peakRssBytes: number;
  ratioToReference: Spread;
  /** The reference's CPU time per request over this server's, paired round by round: less noisy than req/s on a shared machine. */
  cpuRatioToReference: Spread;
}

export function summarise(measurements: Measurement[], referenceLabel: string): Summary[] {
  const summaries: Summary[] = [];
  const levels = [...new Set(measurements.map((m) => m.connections))];
  const labels = [...new Set(measurements.map((m) => m.label))];
  for (const connections of levels) {
    const reference = new Map(
      measurements.filter((m) => m.connections === connections && m.label === referenceLabel).map((m) => [m.round, m]),
    );
    for (const label of labels) {
      const runs = measurements.filter((m) => m.connections === connections && m.label === label);
      summaries.push({
        label,
        connections,
        rounds: runs.length,
        requestsPerSecond: median(runs.map((m) => m.load.requestsPerSecond)),
        p50Ms: median(runs.map((m) => m.load.p50Ms)),
        p99Ms: median(runs.map((m) => m.load.p99Ms)),
        cpuMicrosPerRequest: median(runs.map((m) => m.cpuMicrosPerRequest)),
        peakRssBytes: Math.max(...runs.map((m) => m.peakRssBytes)),
        ratioToReference: spread(
          runs.map((m) => m.load.requestsPerSecond / reference.get(m.round)!.load.requestsPerSecond),
        ),
        cpuRatioToReference: spread(
          runs.map((m) => reference.get(m.round)!.cpuMicrosPerRequest / m.cpuMicrosPerRequest),
        ),
      });
    }
  }
  return summaries;
}
