import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type CpuProfile, SQLITE_WRITER, stageTimes, workerThreadRole } from "./cpu-profile-stages.js";
import { checkAnswers, closedLoop, IdBlocks } from "./measure.js";
import { cpuPerRequest, readCpu, THREAD_ROLES, type ThreadCpu } from "./process-stats.js";
import type { ServerKey } from "./servers.js";
import type { Session } from "./session.js";

export interface StageProfile {
  connections: number;
  /** Every request the profile saw: the warm-up's and the measured run's. */
  requests: number;
  /** CPU per request of the measured run, all threads, from /proc: the profiler's own cost included. */
  cpuMicrosPerRequest: number;
  /** The same by thread role (main, SQLite writer, V8's helpers, the rest). */
  threadCpuMicrosPerRequest: ThreadCpu;
  /** The main thread's busy time per stage, in microseconds over the whole profile. */
  mainStages: Map<string, number>;
  workers: { role: string; busyMicros: number }[];
}

/** The busy time of a set of stages added up. */
export const totalMicros = (stages: Map<string, number>) =>
  [...stages.values()].reduce((sum, micros) => sum + micros, 0);

/**
 * Runs a fresh server (the built one unless `key` names another) under `node --cpu-prof`, loads it with wrk (a
 * warm-up, then a measured run) and attributes each thread's samples to the request stage whose code was running
 * (cpu-profile-stages.ts).
 */
export async function profileStages(
  session: Session,
  plan: { connections: number; warmupSeconds: number; seconds: number },
  key: ServerKey = "plant-store",
): Promise<StageProfile> {
  const profileDir = join(session.dir, `profiles-${key}`);
  mkdirSync(profileDir, { recursive: true });
  const server = await session.start({
    key,
    name: `profiled-${key}`,
    nodeArgs: ["--cpu-prof", "--cpu-prof-dir", profileDir],
  });
  const ids = new IdBlocks();
  await checkAnswers(server, session.token, ids.take());
  const warmup = await closedLoop(session, server, ids, plan.connections, plan.warmupSeconds);
  const cpuBefore = readCpu(server.pid);
  const measured = await closedLoop(session, server, ids, plan.connections, plan.seconds);
  const cpu = cpuPerRequest(cpuBefore, readCpu(server.pid), measured.requests);
  await server.stop(); // the profiles are written as the process exits

  // One profile per thread: the main thread's is the one with the most samples, the rest are worker threads.
  const [main, ...workers] = readdirSync(profileDir)
    .filter((file) => file.endsWith(".cpuprofile"))
    .map((file) => JSON.parse(readFileSync(join(profileDir, file), "utf8")) as CpuProfile)
    .sort((a, b) => b.samples.length - a.samples.length);
  if (!main) throw new Error("the server wrote no CPU profile");
  return {
    connections: plan.connections,
    // The profile spans the warm-up too (and the check request); per-request figures divide by all of them.
    requests: warmup.requests + measured.requests + 1,
    cpuMicrosPerRequest: cpu.all,
    threadCpuMicrosPerRequest: cpu.byRole,
    mainStages: stageTimes(main).stages,
    workers: workers.map((worker) => ({
      role: workerThreadRole(worker),
      busyMicros: totalMicros(stageTimes(worker).stages),
    })),
  };
}

/** The main thread's busy time by stage as a table, and the worker threads' busy time, for a report. */
export function stageProfileMarkdown(profile: StageProfile): string[] {
  const { requests } = profile;
  const busy = totalMicros(profile.mainStages);
  const rows = [...profile.mainStages.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(
      ([stage, micros]) => `| ${stage} | ${(micros / requests).toFixed(1)} | ${((100 * micros) / busy).toFixed(1)}% |`,
    );
  // The writer serves every request; a thread that only ran at start-up is reported by its total instead.
  const workerLines = profile.workers.map(({ role, busyMicros }, index) =>
    role === SQLITE_WRITER
      ? `- Worker thread ${index + 1} (${role}): ${(busyMicros / requests).toFixed(1)} us per request not idle, most of it inside ` +
        "transactions, which includes waiting for fsync (profiles sample wall time, not CPU)."
      : `- Worker thread ${index + 1} (${role}): ${(busyMicros / 1000).toFixed(0)} ms not idle in all.`,
  );
  const byThread = THREAD_ROLES.map((role) => `${role} ${profile.threadCpuMicrosPerRequest[role].toFixed(1)}`).join(
    ", ",
  );
  return [
    `Measured without the profiler's help: ${profile.cpuMicrosPerRequest.toFixed(0)} us of CPU per request (all threads, /proc, measured run only;`,
    `the profiler itself adds to it): ${byThread}. Per-request figures below divide by the ${requests} requests the profile saw (warm-up included).`,
    "The main thread's busy time by stage:",
    "",
    "| Stage | us per request | Share of busy time |",
    "|---|---|---|",
    ...rows,
    `| **main thread busy** | **${(busy / requests).toFixed(1)}** | 100% |`,
    "",
    ...(workerLines.length > 0 ? ["Other threads:", "", ...workerLines, ""] : []),
  ];
}

/**
 * Two profiles' stages side by side, in us per request of main-thread busy time: where one server spends more
 * than the other on the same kind of work. The two ran one after the other, so the host may differ between them.
 */
export function stageComparisonMarkdown(
  first: { label: string; profile: StageProfile },
  second: { label: string; profile: StageProfile },
): string[] {
  const perRequest = (profile: StageProfile, stage: string) => (profile.mainStages.get(stage) ?? 0) / profile.requests;
  const stages = [...new Set([...first.profile.mainStages.keys(), ...second.profile.mainStages.keys()])].sort(
    (a, b) =>
      Math.max(perRequest(first.profile, b), perRequest(second.profile, b)) -
      Math.max(perRequest(first.profile, a), perRequest(second.profile, a)),
  );
  const cell = (micros: number) => (micros === 0 ? "–" : micros.toFixed(1));
  const row = (what: string, a: number, b: number) => `| ${what} | ${cell(a)} | ${cell(b)} | ${(a - b).toFixed(1)} |`;
  return [
    `| Stage | ${first.label} | ${second.label} | difference |`,
    "|---|---:|---:|---:|",
    ...stages.map((stage) => row(stage, perRequest(first.profile, stage), perRequest(second.profile, stage))),
    row(
      "**main thread busy**",
      totalMicros(first.profile.mainStages) / first.profile.requests,
      totalMicros(second.profile.mainStages) / second.profile.requests,
    ),
    row(
      "CPU per request, all threads, /proc (measured run)",
      first.profile.cpuMicrosPerRequest,
      second.profile.cpuMicrosPerRequest,
    ),
    "",
  ];
}
