import { acceptProbe } from "../../accept-probe.js";
import { cpuCap, loadPrecedence } from "@plant-store/test-support/cpu-cap";
import { IdBlocks } from "../../measure.js";
import type { BenchOptions } from "../../options.js";
import { withSession, writeOutputs } from "../../session.js";
import { median } from "../../stats.js";
import { type ClosedRow, closedLoops } from "./closed-loops.js";
import { type Capacity, type OpenRow, openLoops } from "./open-loops.js";
import { CAPACITY_CONNECTIONS, type OverloadBench, type OverloadPlan, SIDES } from "./pair.js";
import { overloadMarkdown } from "./report.js";
import type { SideRequestsRun } from "./side-requests.js";

/** A pod's CPU limit as the overload issues set their targets: a fifth of a core, in 10 ms periods. */
const CAP_SHARE = 0.2;
const CAP_PERIOD_US = 10_000;

/** Everything one run of the mode measured, as its JSON keeps it. */
export interface OverloadResult {
  closed: ClosedRow[];
  side: SideRequestsRun[];
  capacities: (Capacity & { round: number })[];
  open: OpenRow[];
}

/** The rows of the full mode (issue 53's loads), or of `--quick`: the same rows, fewer and shorter. */
function planFor(options: BenchOptions): OverloadPlan {
  const common = { rounds: options.rounds, warmupSeconds: options.warmupSeconds, seconds: options.seconds };
  if (options.quick)
    return {
      ...common,
      closedConnections: [CAPACITY_CONNECTIONS, 256],
      poolSizes: [64],
      poolLevels: [2],
      stormLevel: 2,
      sideLoopConnections: 2_048,
      sideLoopSeconds: 4,
      sideConnections: 8,
      sideRequests: 10,
    };
  return {
    ...common,
    closedConnections: [CAPACITY_CONNECTIONS, 256, 1_024, 2_048, 4_096],
    poolSizes: [64, 1_024],
    poolLevels: [2, 4],
    stormLevel: 2,
    sideLoopConnections: 2_048,
    // 8 connections, one request at a time, 400 requests: about 10 s when the loop's queue is 200 ms long.
    sideLoopSeconds: 16,
    sideConnections: 8,
    sideRequests: 200,
  };
}

/** C and each side's CPU per 2xx from the round's closed loop of 50 connections under the cap. */
function capacityOf(rows: ClosedRow[]): Capacity {
  const row = rows.find((r) => r.connections === CAPACITY_CONNECTIONS)!;
  return {
    perSecond: median(SIDES.map((side) => row.figures[side].okPerSecond)),
    cpuMicrosPerOk: { on: row.figures.on.cpuMicrosPerOk, off: row.figures.off.cpuMicrosPerOk },
  };
}

/**
 * The server with admission control on and off, side by side in every row: closed loops
 * on one core and under a 0.2-core cap, side requests during a closed loop of 2,048 connections, an open loop
 * through a proxy's bounded keep-alive pool at multiples of the capped closed loop's C, and the connection storm.
 * Each round starts fresh processes for each part; within a part the two sides alternate which runs first.
 */
export async function overload(options: BenchOptions): Promise<{ files: string[] }> {
  const plan = planFor(options);
  const caps = {
    on: cpuCap(CAP_SHARE, CAP_PERIOD_US, "overload-on"),
    off: cpuCap(CAP_SHARE, CAP_PERIOD_US, "overload-off"),
  };
  const precedence = loadPrecedence();
  try {
    const accepts = await acceptProbe();
    return await withSession(async (session) => {
      const bench: OverloadBench = { session, ids: new IdBlocks(), plan, caps };
      const result: OverloadResult = { closed: [], side: [], capacities: [], open: [] };
      for (let round = 0; round < plan.rounds; round++) {
        const core = await closedLoops(bench, round, false);
        const capped = await closedLoops(bench, round, true);
        result.closed.push(...core.rows, ...capped.rows);
        result.side.push(...core.side);
        const capacity = capacityOf(capped.rows);
        result.capacities.push({ round, ...capacity });
        result.open.push(...(await openLoops(bench, round, capacity)));
      }
      const node = `node${process.versions.node.split(".")[0]}`;
      const markdown = overloadMarkdown({
        title: `Plant Store under overload, admission control on and off (${node})`,
        options,
        plan,
        session,
        environment: {
          "CPU cap": caps.on.description,
          "CPU precedence": precedence.description,
          "New connections": `libuv ${accepts.libuv} accepted ${accepts.connections} connections opened at once in ${accepts.turnsAccepting} event-loop turns, at most ${accepts.mostInOneTurn} in one (src/accept-probe.ts)`,
        },
        result,
      });
      const files = {
        [`overload-${node}.md`]: markdown,
        [`overload-${node}.json`]: JSON.stringify({ cap: caps.on.description, accepts, plan, ...result }, null, 2),
      };
      writeOutputs(options.outDir, files);
      return { files: Object.keys(files) };
    });
  } finally {
    caps.on.close();
    caps.off.close();
    precedence.close();
  }
}
