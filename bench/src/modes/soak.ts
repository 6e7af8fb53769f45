import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { pinned } from "../cpu-pinning.js";
import { checkAnswers } from "../measure.js";
import type { BenchOptions } from "../options.js";
import { memory } from "../process-stats.js";
import { header, targetTable } from "../report.js";
import { withSession, writeOutputs } from "../session.js";

const LOADER = fileURLToPath(new URL("../fixed-rate-load.js", import.meta.url));
const run = promisify(execFile);
const MIB = 2 ** 20;
const SAMPLE_MS = 5_000;

/** The full pipeline at a fixed rate for a long run: does RSS keep growing after warm-up? */
export async function soak(options: BenchOptions) {
  return withSession(async (session) => {
    const server = await session.start({ key: "plant-store", name: "soak" });
    await checkAnswers(server, session.token, 1);
    const samples: { atSeconds: number; rssBytes: number }[] = [];
    const started = Date.now();
    const sampler = setInterval(() => {
      samples.push({ atSeconds: Math.round((Date.now() - started) / 1000), rssBytes: memory(server.pid).rssBytes });
    }, SAMPLE_MS);
    let result: { sent: number; ok: number; failed: number; failures: Record<string, number> };
    try {
      const [command, args] = pinned(session.pin.load, process.execPath, [
        LOADER,
        server.baseUrl,
        session.token,
        String(options.rate),
        String(options.durationSeconds),
        "2",
      ]);
      const { stdout } = await run(command, args, { timeout: (options.durationSeconds + 60) * 1000 });
      result = JSON.parse(/FIXED_RATE_RESULT (\{.*\})/.exec(stdout)![1]!);
    } finally {
      clearInterval(sampler);
    }
    // Warm-up: the first tenth of the run, at least one sample.
    const warmupEnd = Math.max(SAMPLE_MS / 1000, options.durationSeconds / 10);
    const afterWarmup = samples.filter((s) => s.atSeconds >= warmupEnd);
    if (afterWarmup.length < 2) throw new Error("the soak run was too short to sample RSS after warm-up");
    const base = afterWarmup[0]!.rssBytes;
    const last = afterWarmup[afterWarmup.length - 1]!.rssBytes;
    const peak = Math.max(...afterWarmup.map((s) => s.rssBytes));
    const growth = (last - base) / base;
    const markdown = [
      ...header({
        title: "Plant Store benchmark: soak at a fixed rate",
        command: options.command,
        startedAt: session.startedAt,
        environment: session.environment,
        pinning: session.pin.description,
        plan: `${options.rate} req/s for ${options.durationSeconds} s (a Node fixed-rate generator, keep-alive); RSS sampled every ${SAMPLE_MS / 1000} s`,
        notes: options.notes,
      }),
      `Requests: ${result.sent} sent, ${result.ok} answered 200, ${result.failed} failed` +
        (result.failed > 0
          ? ` (${Object.entries(result.failures)
              .map(([reason, count]) => `${reason}: ${count}`)
              .join(", ")}).`
          : "."),
      "",
      ...targetTable([
        {
          what: "RSS growth after warm-up (first tenth of the run) to the end",
          goal: "< 10%",
          measured: `${(base / MIB).toFixed(1)} MiB -> ${(last / MIB).toFixed(1)} MiB (${(growth * 100).toFixed(1)}%), peak ${(peak / MIB).toFixed(1)} MiB`,
        },
      ]),
      "| Seconds | RSS MiB |",
      "|---:|---:|",
      ...samples.map((s) => `| ${s.atSeconds} | ${(s.rssBytes / MIB).toFixed(1)} |`),
      "",
    ].join("\n");
    writeOutputs(options.outDir, { "benchmarks-soak.md": markdown });
    return { files: ["benchmarks-soak.md"] };
  });
}
