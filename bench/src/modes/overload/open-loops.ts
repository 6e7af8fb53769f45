import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { pinned } from "../../cpu-pinning.js";
import type { PhaseResult } from "../../open-loop.js";
import type { RunningServer } from "../../servers.js";
import { percentile } from "../../stats.js";
import { inTurn, type OverloadBench, type Side, SIDES, withPair } from "./pair.js";

const OPEN_LOOP = fileURLToPath(new URL("../../open-loop-load.js", import.meta.url));
const run = promisify(execFile);

/** Every request's deadline, from when it was due: what the proxy's route timeout would be. */
export const DEADLINE_MS = 2_000;
/** r is reported from this many refusals on: fewer leave it to the CPU figures' noise. */
const MIN_REFUSALS_FOR_R = 100;

/** What the round's closed loops under the cap say the open loops are offered and priced against. */
export interface Capacity {
  /** C: the median (of two, so the mean) of both sides' 2xx/s at 50 connections under the cap. */
  perSecond: number;
  /** Each side's server CPU per 2xx in that closed loop: a serve's price, for r. */
  cpuMicrosPerOk: Record<Side, number>;
}

/** One side's open loop at one load. */
export interface OpenFigures {
  offeredPerSecond: number;
  sent: number;
  /** 2xx answered before their deadline, per second of the schedule (answers after it ends not counted), over C. */
  goodputShare: number;
  okAfterDeadline: number;
  /** Non-2xx answers (503 from admission control), by status. */
  refusedByStatus: Record<string, number>;
  /** Sent requests the proxy aborted at their deadline (closing the connection), and those still connecting then. */
  aborted: number;
  /** Requests that found no idle connection and waited in the pool, and those whose deadline passed there. */
  waited: number;
  expiredInPool: number;
  /** Connections that failed before an answer (refused, reset). */
  errors: number;
  connectionsPerSecond: number;
  /** A refusal's server CPU over a 2xx's (the closed loop's CPU per 2xx); undefined under 100 refusals. */
  r: number | undefined;
  cpuMicrosPerOk: number;
  p50OkMs: number | undefined;
  p99OkMs: number | undefined;
}

export interface OpenRow {
  round: number;
  /** pool: through a bounded keep-alive pool of `pool` connections; storm: a connection per waiting request. */
  kind: "pool" | "storm";
  pool: number | undefined;
  level: number;
  capacityPerSecond: number;
  figures: Record<Side, OpenFigures>;
}

function openFigures(phase: PhaseResult, capacity: Capacity, side: Side): OpenFigures {
  const ok = phase.okLatenciesMs.length;
  const refused = phase.refusedLatenciesMs.length;
  const served = capacity.cpuMicrosPerOk[side];
  const cpuMicros = phase.serverCpuSeconds * 1e6;
  const refusalCpu = (cpuMicros - ok * served) / Math.max(1, refused);
  return {
    offeredPerSecond: phase.rate,
    sent: phase.sent,
    goodputShare: phase.okInTime / phase.seconds / capacity.perSecond,
    okAfterDeadline: phase.okAfterDeadline,
    refusedByStatus: phase.refusedByStatus,
    aborted: phase.missedSent + phase.missedConnecting,
    waited: phase.waited,
    expiredInPool: phase.missedWaiting,
    errors: phase.errors,
    connectionsPerSecond: phase.connectionsOpened / phase.seconds,
    r: refused >= MIN_REFUSALS_FOR_R && served > 0 ? refusalCpu / served : undefined,
    cpuMicrosPerOk: cpuMicros / Math.max(1, ok),
    p50OkMs: percentile(phase.okLatenciesMs, 50),
    p99OkMs: percentile(phase.okLatenciesMs, 99),
  };
}

/** One run of a generator (its own process, on the load core) at `rate` for the plan's seconds. */
async function generate(
  bench: OverloadBench,
  server: RunningServer,
  script: string,
  extra: string[],
  rate: number,
): Promise<PhaseResult> {
  const { session, ids, plan } = bench;
  const phases = `${Math.round(rate)}:${plan.seconds}`;
  const args = [script, server.baseUrl, session.token, String(server.pid), String(ids.take()), String(DEADLINE_MS)];
  const [command, commandArgs] = pinned(session.pin.load, process.execPath, [...args, ...extra, phases]);
  const { stdout, stderr } = await run(command, commandArgs, {
    timeout: (plan.seconds + 60) * 1000,
    maxBuffer: 256 * 2 ** 20,
  });
  const line = /OPEN_LOOP_RESULT (.*)/.exec(stdout)?.[1];
  if (!line) throw new Error(`${script} printed no result:\n${stdout.slice(0, 2000)}\n${stderr.slice(0, 2000)}`);
  return (JSON.parse(line) as PhaseResult[])[0]!;
}

/**
 * One round's open loops under the cap, in a fresh pair of processes: through each pool size at each load, then
 * the connection storm; at each, one run of each side, alternating which goes first.
 */
export async function openLoops(bench: OverloadBench, round: number, capacity: Capacity): Promise<OpenRow[]> {
  const { plan } = bench;
  return withPair(bench, `open-${round}`, true, async (servers) => {
    const rows: OpenRow[] = [];
    const row = async (kind: OpenRow["kind"], pool: number | undefined, level: number) => {
      const figures = {} as Record<Side, OpenFigures>;
      const rate = capacity.perSecond * level;
      for (const side of inTurn(round + rows.length)) {
        const phase =
          kind === "pool"
            ? await generate(bench, servers[side], OPEN_LOOP, [String(pool)], rate)
            : await generate(bench, servers[side], OPEN_LOOP, ["storm"], rate);
        figures[side] = openFigures(phase, capacity, side);
      }
      rows.push({ round, kind, pool, level, capacityPerSecond: capacity.perSecond, figures });
      const text = SIDES.map(
        (side) =>
          `${side} ${figures[side].goodputShare.toFixed(2)} C, ${figures[side].aborted} aborted, r ${figures[side].r?.toFixed(2) ?? "-"}`,
      ).join("; ");
      process.stdout.write(
        `round ${round + 1} ${kind === "pool" ? `pool of ${pool}` : "storm"} at ${level}x C (${capacity.perSecond.toFixed(0)}/s): ${text}\n`,
      );
    };
    for (const pool of plan.poolSizes) for (const level of plan.poolLevels) await row("pool", pool, level);
    await row("storm", undefined, plan.stormLevel);
    return rows;
  });
}
