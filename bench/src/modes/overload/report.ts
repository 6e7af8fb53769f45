import type { BenchOptions } from "../../options.js";
import { header } from "../../report.js";
import type { Session } from "../../session.js";
import type { ClosedFigures, ClosedRow } from "./closed-loops.js";
import { DEADLINE_MS, type OpenFigures, type OpenRow } from "./open-loops.js";
import { CAPACITY_CONNECTIONS, type OverloadPlan, SIDE_LABELS, SIDES, type Side } from "./pair.js";
import {
  SIDE_DEADLINE_MS,
  SIDE_KINDS,
  SIDE_PATIENCE_MS,
  type SideFigures,
  type SideRequestsRun,
  settleSeconds,
} from "./side-requests.js";

export interface OverloadReport {
  title: string;
  options: BenchOptions;
  plan: OverloadPlan;
  session: Session;
  /** What the mode adds to the session's environment table: the cap, the generators' precedence, the accept probe. */
  environment: Record<string, string>;
  result: {
    closed: ClosedRow[];
    side: SideRequestsRun[];
    open: OpenRow[];
  };
}

const STORM_LABEL = "the runtime's limit (libuv accepts one connection per turn)";

const ms = (value: number | undefined) => (value === undefined ? "–" : value.toFixed(0));
const pct = (value: number, digits = 1) => `${(value * 100).toFixed(digits)}%`;
/** A figure of both sides in one cell: on / off. */
const both = <F>(figures: Record<Side, F>, pick: (f: F) => string) => SIDES.map((s) => pick(figures[s])).join(" / ");
const count = (values: Record<string, number>) => Object.values(values).reduce((a, b) => a + b, 0);

function closedTable(rows: ClosedRow[]): string[] {
  const line = (row: ClosedRow) => {
    const f = row.figures;
    const ratio = f.off.okPerSecond > 0 ? (f.on.okPerSecond / f.off.okPerSecond).toFixed(2) : "–";
    const cell = (pick: (x: ClosedFigures) => string) => both(f, pick);
    return `| ${row.capped ? "0.2 core" : "one core"} | ${row.connections.toLocaleString("en")} | ${row.round + 1} | ${cell((x) => x.okPerSecond.toFixed(0))} | ${cell((x) => x.refusedPerSecond.toFixed(0))} | ${cell((x) => pct(x.refusedShare, 2))} | **${ratio}** | ${cell((x) => x.cpuMicrosPerAnswer.toFixed(0))} | ${cell((x) => ms(x.p99Ms))} | ${cell((x) => String(x.socketErrors))} |`;
  };
  const ordered = [...rows].sort(
    (a, b) => Number(a.capped) - Number(b.capped) || a.connections - b.connections || a.round - b.round,
  );
  return [
    "| CPU | connections | round | 2xx/s | 503/s | refused, of answers | on / off 2xx/s | CPU us / answer | p99 ms | wrk socket errors |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...ordered.map(line),
  ];
}

function openTable(rows: OpenRow[]): string[] {
  const line = (row: OpenRow) => {
    const cell = (pick: (x: OpenFigures) => string) => both(row.figures, pick);
    const what = row.kind === "pool" ? `pool of ${row.pool!.toLocaleString("en")}` : `storm: ${STORM_LABEL}`;
    return `| ${what} | ${row.level}x | ${row.round + 1} | ${row.capacityPerSecond.toFixed(0)} | ${cell((x) => x.goodputShare.toFixed(2))} | ${cell((x) => String(x.okAfterDeadline))} | ${cell((x) => String(count(x.refusedByStatus)))} | ${cell((x) => String(x.aborted))} | ${cell((x) => String(x.waited))} | ${cell((x) => String(x.expiredInPool))} | ${cell((x) => String(x.errors))} | ${cell((x) => x.connectionsPerSecond.toFixed(0))} | ${cell((x) => x.r?.toFixed(2) ?? "–")} | ${cell((x) => ms(x.p99OkMs))} |`;
  };
  return [
    "| Load through | x C | round | C 2xx/s | goodput / C | 2xx after deadline | 503 | aborted at deadline | waited in pool | expired in pool | transport errors | connections opened /s | r | p99 2xx ms |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map(line),
  ];
}

function sideTable(runs: SideRequestsRun[]): string[] {
  const line = (run: SideRequestsRun, kind: (typeof SIDE_KINDS)[number]) => {
    const f: SideFigures = run.kinds[kind];
    const others = Object.entries(f.other).map(([status, n]) => `${status}: ${n}`);
    const header = kind === "deadline" ? `\`x-envoy-expected-rq-timeout-ms: ${SIDE_DEADLINE_MS}\`` : "no header";
    const late = kind === "deadline" ? `after ${SIDE_DEADLINE_MS} ms` : `after ${SIDE_PATIENCE_MS / 1000} s`;
    return `| ${SIDE_LABELS[run.side]} | ${run.round + 1} | ${run.loop.okPerSecond.toFixed(0)} / ${run.loop.refusedPerSecond.toFixed(0)} | ${header} | ${f.sent} of ${f.planned} | ${f.ok} | ${f.refused} | ${[...others, `errors: ${f.errors}`].join(", ")} | ${ms(f.p50Ms)} / ${ms(f.p99Ms)} / ${ms(f.maxMs)} | ${f.okLate} ${late} |`;
  };
  return [
    "| Server | round | loop 2xx/s / 503/s | side requests | sent | 2xx | 503 | other | latency p50 / p99 / max ms | 2xx late |",
    "|---|---:|---:|---|---:|---:|---:|---|---:|---:|",
    ...runs.flatMap((run) => SIDE_KINDS.map((kind) => line(run, kind))),
  ];
}

/** overload-nodeNN.md: the header, then the closed loops, the side requests, the open loops and the storm. */
export function overloadMarkdown(report: OverloadReport): string {
  const { options, plan, session, result } = report;
  const plain = plan.closedConnections.map((c) => c.toLocaleString("en")).join(", ");
  return [
    ...header({
      title: report.title,
      command: options.command,
      startedAt: session.startedAt,
      environment: { ...session.environment, ...report.environment },
      pinning: session.pin.description,
      plan:
        `${plan.rounds} round(s); each part in fresh processes of both servers, each warmed up for ${plan.warmupSeconds} s at ${CAPACITY_CONNECTIONS} connections; ` +
        `every run ${plan.seconds} s, the two servers alternating which runs first${options.quick ? "; --quick: a smoke test, not a measurement" : ""}`,
      notes: options.notes,
    }),
    `Every cell holds both servers: **${SIDE_LABELS.on}** / **${SIDE_LABELS.off}**, measured in the same round.`,
    "",
    "## Closed loops",
    "",
    `wrk (one thread, keep-alive, a random id per request) at ${plain} connections, on the server's core uncapped and under the cap.`,
    "503/s counts every answer of 400 or more (wrk does not tell them apart; admission control's refusals are 503).",
    "CPU us / answer: the server's CPU (/proc, all threads) over the run / its answers.",
    "",
    ...closedTable(result.closed),
    "",
    `## Side requests during a closed loop of ${plan.sideLoopConnections.toLocaleString("en")} connections (one core, uncapped)`,
    "",
    `${plan.sideConnections} keep-alive connections, opened before the loop, each sending one request at a time from ${settleSeconds(plan.sideLoopSeconds).toFixed(1)} s into the ${plan.sideLoopSeconds} s loop:`,
    `${plan.sideRequests} with \`x-envoy-expected-rq-timeout-ms: ${SIDE_DEADLINE_MS}\` and ${plan.sideRequests} without, alternating; those not sent by the loop's last second are not sent.`,
    "Latency from each request's send, over every answer.",
    "",
    ...sideTable(result.side),
    "",
    "## Open loops under the cap: a proxy's bounded pool, and the connection storm",
    "",
    `C: the round's closed loop of ${CAPACITY_CONNECTIONS} connections under the cap, the median of both servers' 2xx/s. Every request has a ${DEADLINE_MS / 1000} s deadline from when it was due.`,
    "Pool (src/open-loop-load.ts): at most that many keep-alive connections; a request finding none idle waits in the pool,",
    "the oldest still-live one sent first, and is dropped there for free when its deadline passes; each request sent carries",
    "its remaining time in `x-envoy-expected-rq-timeout-ms`; the proxy aborts a request at its deadline, which closes the",
    "connection, and opens another. Storm (src/open-loop-load.ts): a new connection for each request finding none idle, no header.",
    "Goodput: 2xx answered before their deadline while the schedule ran (not in the drain after it), per second, over C.",
    "2xx after deadline: answers that came after it but before",
    "the generator's 5 ms sweep aborted them. r: (server CPU over the run - 2xx x that server's CPU per 2xx in the capped",
    `closed loop of ${CAPACITY_CONNECTIONS}) / refusals, over that CPU per 2xx, from 100 refusals on.`,
    "",
    ...openTable(result.open),
    "",
  ].join("\n");
}
