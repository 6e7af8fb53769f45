import { cpuSeconds } from "../../process-stats.js";
import type { RunningServer } from "../../servers.js";
import { runWrk } from "../../wrk-load.js";
import { inTurn, type OverloadBench, type Side, SIDE_LABELS, SIDES, withPair } from "./pair.js";
import { sideRequests, type SideRequestsRun } from "./side-requests.js";

/** One side's closed loop at one connection count. */
export interface ClosedFigures {
  requests: number;
  seconds: number;
  okPerSecond: number;
  /** wrk counts every answer of 400 or more as one; here they are the server's 503 refusals. */
  refusedPerSecond: number;
  refusedShare: number;
  /** The server's CPU (all threads, /proc) per answer, and per 2xx. */
  cpuMicrosPerAnswer: number;
  cpuMicrosPerOk: number;
  p99Ms: number;
  /** Connections wrk could not connect, read or write on, and requests it gave up on after 10 s. */
  socketErrors: number;
}

export interface ClosedRow {
  round: number;
  capped: boolean;
  connections: number;
  figures: Record<Side, ClosedFigures>;
}

/** One closed loop of `connections` (wrk on the load core, keep-alive, a fresh random id per request). */
async function closedRun(bench: OverloadBench, server: RunningServer, connections: number): Promise<ClosedFigures> {
  const { session, ids, plan } = bench;
  const before = cpuSeconds(server.pid);
  const load = await runWrk({
    baseUrl: server.baseUrl,
    connections,
    seconds: plan.seconds,
    token: session.token,
    firstId: ids.take(),
    order: "random",
    pin: session.pin.load,
  });
  const cpuMicros = (cpuSeconds(server.pid) - before) * 1e6;
  const ok = load.requests - load.non2xx;
  return {
    requests: load.requests,
    seconds: load.seconds,
    okPerSecond: ok / load.seconds,
    refusedPerSecond: load.non2xx / load.seconds,
    refusedShare: load.non2xx / Math.max(1, load.requests),
    cpuMicrosPerAnswer: cpuMicros / Math.max(1, load.requests),
    cpuMicrosPerOk: cpuMicros / Math.max(1, ok),
    p99Ms: load.p99Ms,
    socketErrors: load.socketErrors,
  };
}

/**
 * Every closed-loop row of one round on one core, uncapped or under the cap: a fresh pair of processes, then at
 * each connection count one run of each side, alternating which goes first. Uncapped, the side requests follow
 * in the same processes.
 */
export async function closedLoops(
  bench: OverloadBench,
  round: number,
  capped: boolean,
): Promise<{ rows: ClosedRow[]; side: SideRequestsRun[] }> {
  const name = `closed-${capped ? "capped" : "core"}-${round}`;
  return withPair(bench, name, capped, async (servers) => {
    const rows: ClosedRow[] = [];
    for (const [index, connections] of bench.plan.closedConnections.entries()) {
      const figures = {} as Record<Side, ClosedFigures>;
      for (const side of inTurn(round + index)) figures[side] = await closedRun(bench, servers[side], connections);
      rows.push({ round, capped, connections, figures });
      process.stdout.write(
        `round ${round + 1} closed loop, ${capped ? "capped" : "one core"}, c=${connections}: ${describe(figures)}\n`,
      );
    }
    const side: SideRequestsRun[] = [];
    if (!capped) for (const s of inTurn(round)) side.push(await sideRequests(bench, servers[s], s, round));
    return { rows, side };
  });
}

function describe(figures: Record<Side, ClosedFigures>): string {
  return SIDES.map(
    (side) =>
      `${SIDE_LABELS[side]} ${figures[side].okPerSecond.toFixed(0)} 2xx/s, ${figures[side].refusedPerSecond.toFixed(0)} refused/s, p99 ${figures[side].p99Ms.toFixed(0)} ms`,
  ).join("; ");
}
