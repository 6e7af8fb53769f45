import { Agent, request } from "node:http";
import type { RunningServer } from "../../servers.js";
import { percentile } from "../../stats.js";
import { runWrk } from "../../wrk-load.js";
import type { OverloadBench, Side } from "./pair.js";

/** The deadline the side requests with the header send, as Envoy would for a route with a 100 ms timeout. */
export const SIDE_DEADLINE_MS = 100;
/** What a side request without the header is judged by: a 2xx within this, and no wait longer. */
export const SIDE_PATIENCE_MS = 2_000;
/** A side request unanswered after this is given up (counted as an error). */
const SIDE_TIMEOUT_MS = 10_000;
/** The closed loop runs this long (2 s, or a third of a short loop) before the first side request: it meets the standing queue. */
export function settleSeconds(loopSeconds: number): number {
  return Math.min(2, loopSeconds / 3);
}

export const SIDE_KINDS = ["deadline", "none"] as const;
export type SideKind = (typeof SIDE_KINDS)[number];

/** One kind of side request on one server: what was sent and how it was answered. */
export interface SideFigures {
  planned: number;
  sent: number;
  ok: number;
  /** 503 answers; any other status is counted by its code in `other`. */
  refused: number;
  other: Record<string, number>;
  /** Transport errors and requests given up after 10 s. */
  errors: number;
  /** Latency of every answer (2xx or not), ms from the request's send. */
  p50Ms: number | undefined;
  p99Ms: number | undefined;
  maxMs: number | undefined;
  /** 2xx answers after the request's deadline (100 ms with the header, 2 s without). */
  okLate: number;
}

export interface SideRequestsRun {
  round: number;
  side: Side;
  /** The closed loop the side requests ran in: 2xx and refusals per second. */
  loop: { connections: number; okPerSecond: number; refusedPerSecond: number };
  kinds: Record<SideKind, SideFigures>;
}

interface Answer {
  kind: SideKind;
  status: number | "error";
  ms: number;
}

function post(agent: Agent, server: RunningServer, token: string, id: number, kind: SideKind): Promise<Answer> {
  const body = `{"id":${id},"name":"Monstera","tag":"tropical"}`;
  const headers: Record<string, string | number> = {
    Authorization: `Bearer ${token}`,
    "Content-Type": "application/json",
    "Content-Length": body.length,
  };
  if (kind === "deadline") headers["x-envoy-expected-rq-timeout-ms"] = SIDE_DEADLINE_MS;
  const sentAt = performance.now();
  return new Promise((resolve) => {
    const answer = (status: number | "error") => resolve({ kind, status, ms: performance.now() - sentAt });
    const req = request(new URL("/plants", server.baseUrl), { method: "POST", agent, headers }, (res) => {
      res.resume();
      res.on("end", () => answer(res.statusCode ?? 0));
      res.on("error", () => answer("error"));
    });
    req.setTimeout(SIDE_TIMEOUT_MS, () => req.destroy());
    req.on("error", () => answer("error"));
    req.end(body);
  });
}

function figuresOf(kind: SideKind, planned: number, answers: Answer[]): SideFigures {
  const mine = answers.filter((a) => a.kind === kind);
  const answered = mine.filter((a) => a.status !== "error").map((a) => a.ms);
  const ok = mine.filter((a) => typeof a.status === "number" && a.status >= 200 && a.status < 300);
  const other: Record<string, number> = {};
  for (const a of mine) {
    if (typeof a.status === "number" && (a.status < 200 || a.status >= 300) && a.status !== 503)
      other[a.status] = (other[a.status] ?? 0) + 1;
  }
  const deadline = kind === "deadline" ? SIDE_DEADLINE_MS : SIDE_PATIENCE_MS;
  return {
    planned,
    sent: mine.length,
    ok: ok.length,
    refused: mine.filter((a) => a.status === 503).length,
    other,
    errors: mine.filter((a) => a.status === "error").length,
    p50Ms: percentile(answered, 50),
    p99Ms: percentile(answered, 99),
    maxMs: answered.length > 0 ? Math.max(...answered) : undefined,
    okLate: ok.filter((a) => a.ms > deadline).length,
  };
}

/**
 * Side requests during a closed loop on one core, uncapped: `sideConnections` keep-alive connections, opened before
 * the loop starts, each sending one request at a time (with the 100 ms deadline header and without, alternating)
 * until all are sent or the loop's last second begins. The requests not sent by then are reported as planned, not sent.
 */
export async function sideRequests(
  bench: OverloadBench,
  server: RunningServer,
  side: Side,
  round: number,
): Promise<SideRequestsRun> {
  const { session, ids, plan } = bench;
  const agent = new Agent({ keepAlive: true, maxSockets: plan.sideConnections });
  let nextId = ids.take();
  try {
    // Open the side connections first: they wait in the loop's queue, not in the accept queue behind it.
    await Promise.all(
      Array.from({ length: plan.sideConnections }, () => post(agent, server, session.token, nextId++, "none")),
    );
    const started = performance.now();
    const loop = runWrk({
      baseUrl: server.baseUrl,
      connections: plan.sideLoopConnections,
      seconds: plan.sideLoopSeconds,
      token: session.token,
      firstId: ids.take(),
      order: "random",
      pin: session.pin.load,
    });
    await new Promise((resolve) => setTimeout(resolve, settleSeconds(plan.sideLoopSeconds) * 1000));
    const queue: SideKind[] = Array.from({ length: 2 * plan.sideRequests }, (_, i) => SIDE_KINDS[i % 2]!);
    const stopAt = started + (plan.sideLoopSeconds - 1) * 1000;
    const answers: Answer[] = [];
    const worker = async () => {
      for (let kind = queue.shift(); kind !== undefined && performance.now() < stopAt; kind = queue.shift())
        answers.push(await post(agent, server, session.token, nextId++, kind));
    };
    await Promise.all(Array.from({ length: plan.sideConnections }, worker));
    const load = await loop;
    const run: SideRequestsRun = {
      round,
      side,
      loop: {
        connections: plan.sideLoopConnections,
        okPerSecond: (load.requests - load.non2xx) / load.seconds,
        refusedPerSecond: load.non2xx / load.seconds,
      },
      kinds: {
        deadline: figuresOf("deadline", plan.sideRequests, answers),
        none: figuresOf("none", plan.sideRequests, answers),
      },
    };
    const text = (f: SideFigures) =>
      `${f.sent} sent, ${f.ok} 2xx, ${f.refused} 503, p99 ${f.p99Ms?.toFixed(0) ?? "-"} ms, ${f.okLate} 2xx late`;
    process.stdout.write(
      `round ${round + 1} side requests, ${side}: with the header ${text(run.kinds.deadline)}; without ${text(run.kinds.none)}\n`,
    );
    return run;
  } finally {
    agent.destroy();
  }
}
