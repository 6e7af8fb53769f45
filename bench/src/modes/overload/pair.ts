import type { CpuCap } from "@plant-store/test-support/cpu-cap";
import { checkAnswers, closedLoop, type IdBlocks } from "../../measure.js";
import type { RunningServer } from "../../servers.js";
import type { Session } from "../../session.js";

/** The two servers every row shows side by side: the built server with admission control on, and off. */
export const SIDES = ["on", "off"] as const;
export type Side = (typeof SIDES)[number];

export const SIDE_LABELS: Record<Side, string> = {
  on: "Plant Store, ADMISSION_CONTROL=true",
  off: "Plant Store, ADMISSION_CONTROL=false",
};

const SIDE_ENV: Record<Side, Record<string, string>> = {
  on: { ADMISSION_CONTROL: "true" },
  off: { ADMISSION_CONTROL: "false" },
};

/** The closed loop whose 2xx/s under the cap is C, the capacity the open loops are offered multiples of. */
export const CAPACITY_CONNECTIONS = 50;

/** What the rows are made of: which loads, how long, how many side requests. `--quick` shrinks each. */
export interface OverloadPlan {
  rounds: number;
  warmupSeconds: number;
  seconds: number;
  /** Closed loops (wrk, keep-alive), each on one core uncapped and under the cap. */
  closedConnections: number[];
  /** The open loop through a proxy's bounded pool: pool sizes, and loads as multiples of C. */
  poolSizes: number[];
  poolLevels: number[];
  /** The connection storm's load, a multiple of C. */
  stormLevel: number;
  /** Side requests during a closed loop of `sideLoopConnections`, for `sideLoopSeconds` on one core uncapped. */
  sideLoopConnections: number;
  sideLoopSeconds: number;
  sideConnections: number;
  /** Side requests of each kind (with the 100 ms deadline header, without). */
  sideRequests: number;
}

/** What every run of the mode shares: the session, the id blocks, the plan and the two caps (one per server). */
export interface OverloadBench {
  session: Session;
  ids: IdBlocks;
  plan: OverloadPlan;
  caps: Record<Side, CpuCap>;
}

/** The two sides in the order a run takes them: alternating by `turn`, so neither is always first. */
export function inTurn(turn: number): Side[] {
  return turn % 2 === 0 ? [...SIDES] : [...SIDES].reverse();
}

/**
 * A fresh process of each side for `body`, both checked with one create and warmed up with a closed loop of 50
 * connections; `capped` puts each in its own cgroup (the cap), otherwise both share the server core, one loaded
 * at a time. Both are stopped after `body`.
 */
export async function withPair<T>(
  bench: OverloadBench,
  name: string,
  capped: boolean,
  body: (servers: Record<Side, RunningServer>) => Promise<T>,
): Promise<T> {
  const { session, ids, plan, caps } = bench;
  const started: RunningServer[] = [];
  try {
    for (const side of SIDES) {
      const server = await session.start({
        key: "plant-store",
        name: `${name}-${side}`,
        label: SIDE_LABELS[side],
        env: SIDE_ENV[side],
      });
      started.push(server);
      if (capped) caps[side].add(server.pid);
      await checkAnswers(server, session.token, ids.take());
      await closedLoop(session, server, ids, CAPACITY_CONNECTIONS, plan.warmupSeconds);
    }
    return await body({ on: started[0]!, off: started[1]! });
  } finally {
    await Promise.all(started.map((server) => server.stop()));
  }
}
