import { STAGE_RULES } from "./cpu-profile-stages.js";
import { type Measurement, medianOf } from "./measure.js";
import { type StageProfile, totalMicros } from "./stage-profile.js";

/** Plant Store's main-thread stages that the tuned Fastify peer has no counterpart for. */
const STAGES_THE_PEER_LACKS = ["HTTP: Express and its router", "metrics", "headers (helmet, CORS)"];
/** The stage bare Express has no counterpart for besides the store (which is the writer thread, counted apart). */
const LOG_STAGE = "log";
for (const stage of [...STAGES_THE_PEER_LACKS, LOG_STAGE]) {
  if (!STAGE_RULES.some(([name]) => name === stage))
    throw new Error(`floor.ts names a stage the profile does not have: ${stage}`);
}

/** The servers the floor is worked out from, by their report labels. */
export interface FloorLabels {
  server: string;
  tunedPeer: string;
  bareExpress: string;
  bareNodeHttp: string;
  /** (6), Express as the server runs it with a fixed answer, when the run has it. */
  expressAsServed?: string | undefined;
}

/** Issue 26's CPU target: at most this share of the tuned peer's CPU per request. */
export const TARGET_CPU_RATIO = 0.8;

const us = (value: number) => value.toFixed(1);
const percent = (part: number, whole: number) => `${Math.round((100 * part) / whole)}%`;
const shareOfGap = (part: number, gap: number) =>
  gap > 0 ? `${us(part)} (${percent(part, gap)})` : `${us(part)} (no gap)`;

/** The share of the main thread's busy time that `stages` took in the profile. */
function shareOf(stages: StageProfile, names: string[]): number {
  return names.reduce((sum, name) => sum + (stages.mainStages.get(name) ?? 0), 0) / totalMicros(stages.mainStages);
}

/**
 * What the CPU target leaves once the platform and the durable commit are paid, worked out from this run's
 * medians: bare node:http's CPU per request is what node:http costs a request that does nothing, and Plant
 * Store's writer thread is its commit. With the stage profile, the share of the gap that the stages the peer
 * lacks explain, and the share of the gap to bare Express that the commit and the log line explain. With (6), Express
 * as the server runs it answering a fixed JSON, the share of the gap that the framework itself explains, measured
 * rather than read off the profile, and what the target leaves the server's own stages once it is paid.
 */
export function floorMarkdown(
  measurements: Measurement[],
  labels: FloorLabels,
  stages: StageProfile | undefined,
): string[] {
  const levels = [...new Set(measurements.filter((m) => m.label === labels.server).map((m) => m.connections))];
  const figures = levels.map((connections) => {
    const total = (label: string) => medianOf(measurements, label, connections, (m) => m.cpuMicrosPerRequest);
    const server = total(labels.server);
    const peer = total(labels.tunedPeer);
    const platform = total(labels.bareNodeHttp);
    const express = total(labels.bareExpress);
    const writer = medianOf(
      measurements,
      labels.server,
      connections,
      (m) => m.threadCpuMicrosPerRequest["SQLite writer thread"],
    );
    const main = medianOf(measurements, labels.server, connections, (m) => m.threadCpuMicrosPerRequest["main thread"]);
    const framework = labels.expressAsServed === undefined ? undefined : total(labels.expressAsServed);
    const target = TARGET_CPU_RATIO * peer;
    return {
      connections,
      server,
      peer,
      platform,
      express,
      writer,
      framework,
      target,
      left: target - platform - writer,
      spent: server - platform - writer,
      gap: server - target,
      // With (6): what the target leaves the server's own stages once Express and the commit are paid, and their cost now.
      ownLeft: framework === undefined ? undefined : target - framework - writer,
      ownNow: framework === undefined ? undefined : server - framework - writer,
      peerLacks: stages ? shareOf(stages, STAGES_THE_PEER_LACKS) * main : undefined,
      log: stages ? shareOf(stages, [LOG_STAGE]) * main : undefined,
    };
  });
  const row = (what: string, cell: (f: (typeof figures)[number]) => string) =>
    `| ${what} | ${figures.map(cell).join(" | ")} |`;
  const lines = [
    "CPU us per request, medians over this run's rounds. Bare node:http is what node:http costs a request that does",
    "nothing; Plant Store's writer thread is what its durable commit costs. Neither is Plant Store's to cut, so the",
    `CPU target leaves the rest of its work what remains of ${TARGET_CPU_RATIO}x the tuned peer after them. Throughput follows: a`,
    "server alone on its core serves about one request per CPU time per request, so 1.25x the peer's req/s asks the same.",
    "",
    `| | ${figures.map((f) => `${f.connections} connections`).join(" | ")} |`,
    `|---|${figures.map(() => "---:|").join("")}`,
    row("(5) tuned peer, all threads", (f) => us(f.peer)),
    row(`the CPU target: ${TARGET_CPU_RATIO}x (5)`, (f) => us(f.target)),
    row("(3) bare node:http, all threads", (f) => us(f.platform)),
    row("(1) SQLite writer thread", (f) => us(f.writer)),
    row("**left for the rest of (1)'s work: target − (3) − writer**", (f) => `**${us(f.left)}**`),
    row("what (1) spends on it now: (1) − (3) − writer", (f) => us(f.spent)),
    row("what (5) spends above (3), its SQLite commit included", (f) => us(f.peer - f.platform)),
    row("the gap: (1) − target", (f) => us(f.gap)),
  ];
  if (labels.expressAsServed !== undefined) {
    lines.push(
      row("(6) Express as (1) runs it, a fixed answer, all threads", (f) => us(f.framework!)),
      row("of the gap, Express as (1) runs it: (6) − (3)", (f) => shareOfGap(f.framework! - f.platform, f.gap)),
      row("left for (1)'s own stages once Express is paid: target − (6) − writer", (f) => us(f.ownLeft!)),
      row("what those stages cost (1) now: (1) − (6) − writer", (f) => us(f.ownNow!)),
    );
  }
  if (stages) {
    lines.push(
      row(
        "of the gap, the stages (5) lacks (Express and its router, metrics, security headers; profile shares of (1)'s main thread)",
        (f) => shareOfGap(f.peerLacks!, f.gap),
      ),
    );
  }
  lines.push(
    row("(2) bare Express, all threads", (f) => us(f.express)),
    row("(1) − (2)", (f) => us(f.server - f.express)),
  );
  if (stages) {
    lines.push(
      row("of it, (1)'s writer thread and log line, which (2) does not have", (f) =>
        f.server > f.express
          ? `${us(f.writer + f.log!)} (${percent(f.writer + f.log!, f.server - f.express)})`
          : `${us(f.writer + f.log!)} (no gap)`,
      ),
    );
  }
  lines.push("");
  for (const f of figures) {
    if (f.gap <= 0) {
      lines.push(`- At ${f.connections} connections (1) is within the CPU target.`);
      continue;
    }
    const leftText =
      f.left > 0
        ? `${us(f.left)} us: ${percent(f.left, f.spent)} of what that work costs (1) now, and ${percent(f.left, f.peer - f.platform)} of what (5) spends above node:http, its commit included`
        : "nothing: node:http and the commit alone are over the target";
    lines.push(`- At ${f.connections} connections the target leaves the rest of (1)'s work ${leftText}.`);
    if (f.framework === undefined || f.ownLeft === undefined || f.ownNow === undefined) continue;
    lines.push(
      f.ownLeft > 0
        ? `  Express as (1) runs it takes ${us(f.framework - f.platform)} us of that, leaving ${us(f.ownLeft)} us for auth, validation, the store's hand-off, the log line, metrics and security headers, which cost (1) ${us(f.ownNow)} us now (${percent(f.ownLeft, f.ownNow)}).`
        : `  Express as (1) runs it takes ${us(f.framework - f.platform)} us of that: with the commit it is over the target before (1) does any work of its own.`,
    );
  }
  lines.push("");
  return lines;
}
