import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type CpuProfile, STAGE_RULES, stageTimes, workerThreadRole } from "../cpu-profile-stages.js";
import { checkAnswers, IdBlocks } from "../measure.js";
import type { BenchOptions } from "../options.js";
import { cpuSeconds } from "../process-stats.js";
import { header } from "../report.js";
import { withSession, writeOutputs } from "../session.js";
import { runWrk } from "../wrk-load.js";

/**
 * Where the full pipeline's CPU goes, by stage: the built server runs under `node --cpu-prof` at 50 connections,
 * and each thread's samples are attributed to the request stage whose code was running (cpu-profile-stages.ts).
 */
export async function profile(options: BenchOptions) {
  return withSession(async (session) => {
    const profileDir = join(session.dir, "profiles");
    mkdirSync(profileDir, { recursive: true });
    const server = await session.start({
      key: "plant-store",
      name: "profiled",
      nodeArgs: ["--cpu-prof", "--cpu-prof-dir", profileDir],
    });
    const ids = new IdBlocks();
    await checkAnswers(server, session.token, ids.take());
    const connections = options.connections[0] ?? 50;
    const load = { baseUrl: server.baseUrl, connections, token: session.token, order: "ascending" as const, pin: session.pin.load };
    const warmup = await runWrk({ ...load, firstId: ids.take(), seconds: options.warmupSeconds });
    const cpuBefore = cpuSeconds(server.pid);
    const measured = await runWrk({ ...load, firstId: ids.take(), seconds: options.seconds });
    const cpuMicrosPerRequest = ((cpuSeconds(server.pid) - cpuBefore) * 1e6) / measured.requests;
    await server.stop(); // the profiles are written as the process exits

    // One profile per thread: the main thread's is the one with the most samples, the rest are worker threads.
    const profiles = readdirSync(profileDir)
      .filter((file) => file.endsWith(".cpuprofile"))
      .map((file) => JSON.parse(readFileSync(join(profileDir, file), "utf8")) as CpuProfile)
      .sort((a, b) => b.samples.length - a.samples.length);
    const [main, ...workers] = profiles;
    if (!main) throw new Error("the server wrote no CPU profile");
    // The profile spans the warm-up too; per-request figures divide by every request it saw.
    const requests = warmup.requests + measured.requests + 1;
    const mainTimes = stageTimes(main);
    const sum = (stages: Map<string, number>) => [...stages.values()].reduce((total, micros) => total + micros, 0);
    const busy = sum(mainTimes.stages);
    const rows = [...mainTimes.stages.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([stage, micros]) => `| ${stage} | ${(micros / requests).toFixed(1)} | ${((100 * micros) / busy).toFixed(1)}% |`);
    const markdown = [
      ...header({
        title: "Plant Store benchmark: CPU per request by stage",
        command: options.command,
        startedAt: session.startedAt,
        environment: session.environment,
        pinning: session.pin.description,
        plan: `${connections} connections; a ${options.warmupSeconds} s warm-up, then ${options.seconds} s measured; the profile spans both`,
        notes: options.notes,
      }),
      "## What runs",
      "",
      "The built server as in the comparison (production mode, SQLite, info logs to a file) under `node --cpu-prof`,",
      `loaded by wrk at ${connections} connections. Each sample of a thread's profile is attributed to the first stage`,
      "found walking from the running function out to its callers, by the file the code is in (rules below).",
      `Per-request figures divide by the ${requests} requests the profile saw (warm-up included).`,
      "",
      "## Main thread",
      "",
      `Measured without the profiler's help: ${cpuMicrosPerRequest.toFixed(0)} us of CPU per request (all threads, /proc, measured run only;`,
      "the profiler itself adds to it). The main thread's busy time by stage:",
      "",
      "| Stage | us per request | Share of busy time |",
      "|---|---|---|",
      ...rows,
      `| **main thread busy** | **${(busy / requests).toFixed(1)}** | 100% |`,
      "",
      ...(workers.length > 0
        ? [
            "## Other threads",
            "",
            ...workers.map((worker, index) => {
              const role = workerThreadRole(worker);
              const busy = `- Worker thread ${index + 1} (${role}): ${(sum(stageTimes(worker).stages) / requests).toFixed(1)} us per request not idle`;
              return role === "the SQLite writer"
                ? `${busy}, most of it inside transactions, which includes waiting for fsync (profiles sample wall time, not CPU).`
                : `${busy}.`;
            }),
            "",
          ]
        : []),
      "## Stage rules",
      "",
      "| Stage | Files |",
      "|---|---|",
      ...STAGE_RULES.map(([stage, file]) => `| ${stage} | \`${file.source.replaceAll("|", "\\|")}\` |`),
      "",
    ].join("\n");
    writeOutputs(options.outDir, { "benchmarks-profile.md": markdown });
    return { files: ["benchmarks-profile.md"] };
  });
}
