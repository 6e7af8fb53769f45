import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { setTimeout as delay } from "node:timers/promises";
import { promisify } from "node:util";
import { checkAnswers, closedLoop, IdBlocks, requireAllOk } from "../measure.js";
import type { BenchOptions } from "../options.js";
import { pinned } from "../cpu-pinning.js";
import { cpuSeconds } from "../process-stats.js";
import { header, spreadText } from "../report.js";
import { SERVER_LABELS, type ServerKey } from "../servers.js";
import { type Session, withSession, writeOutputs } from "../session.js";
import { quantile, spread } from "../stats.js";

const PROBE = fileURLToPath(new URL("../core-memory-probe.js", import.meta.url));
const SERVERS: ServerKey[] = ["plant-store", "fastify-tuned"];
/** A start is slow when its CPU per request is this far above its server's fastest start. */
const SLOW_START = 1.5;
/** A start's core was slow when one of its probes took this far above the lower quartile of every probe in the run. */
const SLOW_CORE = 1.15;

export interface Start {
  server: ServerKey;
  index: number;
  requests: number;
  requestsPerSecond: number;
  cpuMicrosPerRequest: number;
  /** CPU milliseconds of the memory-bound probe on the servers' core, run a quarter and three quarters into the window. */
  probeCpuMs: [number, number];
}

/**
 * Fresh starts: the built server and the tuned peer, each started anew `rounds` times in alternating order, each
 * start warmed up and then measured once. A server that can settle into a slow state shows it here as starts at
 * about twice its other starts' CPU per request. Twice in each measured window a fixed memory-bound probe runs on
 * the same core: on a shared host the core itself slows down now and then (other tenants on its caches), and a
 * slow start whose probe was slow too is the host's, not the server's.
 */
export async function starts(options: BenchOptions): Promise<{ files: string[]; starts: Start[] }> {
  return withSession(async (session) => {
    const connections = options.connections[0] ?? 50;
    const ids = new IdBlocks();
    const measured: Start[] = [];
    for (let index = 0; index < options.rounds; index++) {
      const order = index % 2 === 0 ? SERVERS : [...SERVERS].reverse();
      for (const server of order) {
        const start = await measureStart(session, options, server, index, connections, ids);
        measured.push(start);
        process.stdout.write(
          `start ${index + 1}/${options.rounds} ${server}: ${start.cpuMicrosPerRequest.toFixed(1)} us/req, ` +
            `${Math.round(start.requestsPerSecond)} req/s, probe ${start.probeCpuMs.map((ms) => ms.toFixed(0)).join(" / ")} ms\n`,
        );
      }
    }
    const markdown = startsMarkdown(options, session, connections, measured);
    writeOutputs(options.outDir, {
      "benchmarks-starts.md": markdown,
      "benchmarks-starts.json": `${JSON.stringify({ connections, starts: measured }, null, 2)}\n`,
    });
    return { files: ["benchmarks-starts.md", "benchmarks-starts.json"], starts: measured };
  });
}

async function measureStart(
  session: Session,
  options: BenchOptions,
  key: ServerKey,
  index: number,
  connections: number,
  ids: IdBlocks,
): Promise<Start> {
  const server = await session.start({ key, name: `${key}-${index}` });
  try {
    const answer = await checkAnswers(server, session.token, ids.take());
    if (answer.status !== 200) throw new Error(`${server.label} answered ${answer.status}: ${answer.body}`);
    const load = (seconds: number) => closedLoop(session, server, ids, connections, seconds);
    await load(options.warmupSeconds);
    const before = cpuSeconds(server.pid);
    // The server's CPU is read as its load ends, not after a probe that may outlast it.
    const measuredLoad = load(options.seconds).then((result) => ({ result, cpu: cpuSeconds(server.pid) - before }));
    const probeAt = (fraction: number) => delay(fraction * options.seconds * 1000).then(() => probeCore(session));
    const [{ result, cpu }, ...probes] = await Promise.all([measuredLoad, probeAt(0.25), probeAt(0.75)]);
    requireAllOk(server.label, connections, result);
    return {
      server: key,
      index,
      requests: result.requests,
      requestsPerSecond: result.requestsPerSecond,
      cpuMicrosPerRequest: (cpu * 1e6) / result.requests,
      probeCpuMs: [probes[0], probes[1]],
    };
  } finally {
    await server.stop();
  }
}

async function probeCore(session: Session): Promise<number> {
  const [command, args] = pinned(session.pin.server, process.execPath, [PROBE]);
  const { stdout } = await promisify(execFile)(command, args);
  return (JSON.parse(stdout) as { cpuMs: number }).cpuMs;
}

function startsMarkdown(options: BenchOptions, session: Session, connections: number, measured: Start[]): string {
  // The lower quartile, not the fastest: one lucky probe run would otherwise mark every core slow.
  const quickProbe = quantile(
    measured.flatMap((s) => s.probeCpuMs),
    0.25,
  );
  const onSlowCore = (start: Start) => Math.max(...start.probeCpuMs) >= SLOW_CORE * quickProbe;
  const lines = [
    ...header({
      title: "Plant Store benchmark: fresh starts",
      command: options.command,
      startedAt: session.startedAt,
      environment: session.environment,
      pinning: session.pin.description,
      plan:
        `${options.rounds} starts of each server in alternating order, each at ${connections} connections for a ${options.warmupSeconds} s ` +
        `warm-up and ${options.seconds} s measured, the core probed twice within it`,
      notes: options.notes,
    }),
    "A start is counted slow when its CPU per request is at least " +
      `${SLOW_START}x its server's fastest start; the probe (\`bench/src/core-memory-probe.ts\`, a fixed memory-bound loop on the`,
    `servers' core a quarter and three quarters into each window) marks the core slow when either run took at least ${SLOW_CORE}x the`,
    `lower quartile of all its runs (${quickProbe.toFixed(0)} ms). The probe shares the core with the loaded server, so its runs take longer than on an idle core.`,
    "",
    "| Server | CPU us/req: median (min–max) | spread (max / min) | slow starts | of which on a slow core | spread on a quick core |",
    "|---|---:|---:|---:|---:|---:|",
  ];
  for (const key of SERVERS) {
    const mine = measured.filter((s) => s.server === key);
    if (mine.length === 0) continue;
    const cpu = spread(mine.map((s) => s.cpuMicrosPerRequest));
    const slow = mine.filter((s) => s.cpuMicrosPerRequest >= SLOW_START * cpu.min);
    const quick = mine.filter((s) => !onSlowCore(s)).map((s) => s.cpuMicrosPerRequest);
    const quickCpu = quick.length > 0 ? spread(quick) : undefined;
    const quickSpread = quickCpu ? `${(quickCpu.max / quickCpu.min).toFixed(2)}x over ${quick.length}` : "none";
    lines.push(
      `| ${SERVER_LABELS[key]} | ${cpu.median.toFixed(1)} (${cpu.min.toFixed(1)}–${cpu.max.toFixed(1)}) | ${(cpu.max / cpu.min).toFixed(2)}x | ` +
        `${slow.length} of ${mine.length} | ${slow.filter(onSlowCore).length} | ${quickSpread} |`,
    );
  }
  const pairs = Array.from({ length: options.rounds }, (_, index) => {
    const of = (key: ServerKey) => measured.find((s) => s.server === key && s.index === index)?.cpuMicrosPerRequest;
    const [server, peer] = [of("plant-store"), of("fastify-tuned")];
    return server !== undefined && peer !== undefined ? server / peer : undefined;
  }).filter((ratio) => ratio !== undefined);
  if (pairs.length > 0) {
    lines.push("", `Plant Store / tuned peer, CPU per request, start by start: ${spreadText(spread(pairs))}.`);
  }
  lines.push(
    "",
    "| Start | Server | requests | req/s | CPU us/req | probe ms |",
    "|---:|---|---:|---:|---:|---:|",
    ...measured.map(
      (s) =>
        `| ${s.index + 1} | ${SERVER_LABELS[s.server]} | ${s.requests} | ${Math.round(s.requestsPerSecond)} | ` +
        `${s.cpuMicrosPerRequest.toFixed(1)} | ${s.probeCpuMs.map((ms) => ms.toFixed(0)).join(" / ")} |`,
    ),
    "",
  );
  return lines.join("\n");
}
