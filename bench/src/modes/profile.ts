import { STAGE_RULES } from "../cpu-profile-stages.js";
import type { BenchOptions } from "../options.js";
import { header } from "../report.js";
import { withSession, writeOutputs } from "../session.js";
import { SERVER_LABELS, SERVER_SHORT_LABELS } from "../servers.js";
import { profileStages, stageComparisonMarkdown, stageProfileMarkdown } from "../stage-profile.js";

/**
 * Where the full pipeline's CPU goes, by stage: the built server runs under `node --cpu-prof` at 50 connections,
 * and each thread's samples are attributed to the request stage whose code was running (cpu-profile-stages.ts).
 * The tuned Fastify peer runs the same way after it, so the two can be set side by side stage by stage. The
 * comparison run (compare.ts) adds the server's table to its own report; this report adds the peer and the rules.
 */
export async function profile(options: BenchOptions) {
  return withSession(async (session) => {
    const connections = options.connections[0] ?? 50;
    const plan = { connections, warmupSeconds: options.warmupSeconds, seconds: options.seconds };
    const stages = await profileStages(session, plan);
    const peerStages = await profileStages(session, plan, "fastify-tuned");
    const server = { label: SERVER_SHORT_LABELS["plant-store"], profile: stages };
    const peer = { label: SERVER_SHORT_LABELS["fastify-tuned"], profile: peerStages };
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
      `loaded by wrk at ${connections} connections, then the tuned Fastify peer the same way. Each sample of a thread's`,
      "profile is attributed to the first stage found walking from the running function out to its callers, by the",
      "file the code is in (rules below).",
      "",
      `## By stage: ${SERVER_LABELS["plant-store"]}`,
      "",
      ...stageProfileMarkdown(stages),
      `## By stage: ${SERVER_LABELS["fastify-tuned"]}`,
      "",
      ...stageProfileMarkdown(peerStages),
      "## Side by side",
      "",
      "The main thread's busy time per request in each profile, stage by stage (us; the difference is (1) − (5)). The",
      "peer commits to SQLite on its main thread, and its profile counts the wait for fsync there; Plant Store's writer",
      "thread commits, and its main thread's profile counts the writer's turns on the core in \"store\". The two ran one",
      "after the other, not in paired rounds.",
      "",
      ...stageComparisonMarkdown(server, peer),
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
