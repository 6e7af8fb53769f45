import { STAGE_RULES } from "../cpu-profile-stages.js";
import type { BenchOptions } from "../options.js";
import { header } from "../report.js";
import { withSession, writeOutputs } from "../session.js";
import { profileStages, stageProfileMarkdown } from "../stage-profile.js";

/**
 * Where the full pipeline's CPU goes, by stage: the built server runs under `node --cpu-prof` at 50 connections,
 * and each thread's samples are attributed to the request stage whose code was running (cpu-profile-stages.ts).
 * The comparison run (compare.ts) adds the same table to docs/benchmarks.md; this report adds the rules.
 */
export async function profile(options: BenchOptions) {
  return withSession(async (session) => {
    const connections = options.connections[0] ?? 50;
    const stages = await profileStages(session, { connections, warmupSeconds: options.warmupSeconds, seconds: options.seconds });
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
      "",
      "## By stage",
      "",
      ...stageProfileMarkdown(stages),
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
