import { checkAnswers, closedLoop, IdBlocks, requireAllOk } from "../measure.js";
import type { BenchOptions } from "../options.js";
import { cpuSeconds } from "../process-stats.js";
import { header } from "../report.js";
import { withSession, writeOutputs } from "../session.js";
import { spread } from "../stats.js";
import type { LoadResult } from "../wrk-load.js";

export interface AbRound {
  base: { requests: number; cpuMicrosPerRequest: number };
  variant: { requests: number; cpuMicrosPerRequest: number };
  /** The variant's CPU per request over the base's, in the same window. */
  ratio: number;
}

/**
 * The built server against one variant (another build, or the same with a switch), both loaded at the same
 * time: both servers on the servers' core, one wrk each on the load core, and each server's CPU per request
 * over the same window. On a shared host whose speed drifts by tens of percent within a minute, measuring
 * one server after the other mixes that drift into the difference; loaded together, a slow moment slows both
 * alike and the ratio holds within a few percent. For levers of a few percent; `compare` is the published
 * side-by-side run.
 */
export async function ab(options: BenchOptions): Promise<{ files: string[]; rounds: AbRound[] }> {
  const [variant, ...others] = options.variants;
  if (!variant || others.length > 0) throw new Error("--mode ab compares the built server with exactly one --variant");
  return withSession(async (session) => {
    const base = await session.start({ key: "plant-store", name: "base", label: "base" });
    const other = await session.start({
      key: "plant-store",
      name: "variant",
      label: variant.label,
      main: variant.main,
      env: variant.env,
      nodeArgs: variant.nodeArgs,
    });
    const ids = new IdBlocks();
    for (const server of [base, other]) {
      const answer = await checkAnswers(server, session.token, ids.take());
      if (answer.status !== 200) throw new Error(`${server.label} answered ${answer.status}: ${answer.body}`);
    }
    const connections = options.connections[0] ?? 25;
    const loadBoth = (seconds: number) =>
      Promise.all([base, other].map((server) => closedLoop(session, server, ids, connections, seconds)));
    await loadBoth(options.warmupSeconds);

    const rounds: AbRound[] = [];
    for (let round = 0; round < options.rounds; round++) {
      const before = [cpuSeconds(base.pid), cpuSeconds(other.pid)];
      const [baseLoad, variantLoad] = await loadBoth(options.seconds);
      const after = [cpuSeconds(base.pid), cpuSeconds(other.pid)];
      requireAllOk(base.label, connections, baseLoad!);
      requireAllOk(other.label, connections, variantLoad!);
      const perRequest = (cpu: number, load: LoadResult) => ({
        requests: load.requests,
        cpuMicrosPerRequest: (cpu * 1e6) / load.requests,
      });
      const measured = {
        base: perRequest(after[0]! - before[0]!, baseLoad!),
        variant: perRequest(after[1]! - before[1]!, variantLoad!),
      };
      rounds.push({ ...measured, ratio: measured.variant.cpuMicrosPerRequest / measured.base.cpuMicrosPerRequest });
      process.stdout.write(
        `round ${round + 1}/${options.rounds}: base ${measured.base.cpuMicrosPerRequest.toFixed(1)} us/req, ` +
          `${variant.label} ${measured.variant.cpuMicrosPerRequest.toFixed(1)} us/req, ratio ${rounds.at(-1)!.ratio.toFixed(3)}\n`,
      );
    }

    const ratio = spread(rounds.map((r) => r.ratio));
    const total = (pick: (r: AbRound) => number) => rounds.reduce((sum, r) => sum + pick(r), 0).toLocaleString("en");
    const markdown = [
      ...header({
        title: `Plant Store A/B: ${variant.label} against the built server`,
        command: options.command,
        startedAt: session.startedAt,
        environment: session.environment,
        pinning: `${session.pin.description}; both servers share the server core and are loaded at the same time`,
        plan: `${connections} connections to each server at once; a ${options.warmupSeconds} s warm-up, then ${options.rounds} rounds of ${options.seconds} s`,
        notes: options.notes,
      }),
      `**${variant.label} / base, server CPU per request: ${ratio.median.toFixed(3)}x (${ratio.min.toFixed(3)}–${ratio.max.toFixed(3)})**, median (range) of ${rounds.length} rounds; below 1 is cheaper.`,
      "",
      // A round with a non-2xx answer or a socket error stops the run (requireAllOk), so these are all 2xx.
      `Every measured request answered 2xx, with no socket error: ${total((r) => r.base.requests)} to the base, ${total((r) => r.variant.requests)} to ${variant.label}.`,
      "",
      "| Round | base requests | base us/req | variant requests | variant us/req | variant / base |",
      "|---:|---:|---:|---:|---:|---:|",
      ...rounds.map(
        (r, i) =>
          `| ${i + 1} | ${r.base.requests} | ${r.base.cpuMicrosPerRequest.toFixed(1)} | ${r.variant.requests} | ${r.variant.cpuMicrosPerRequest.toFixed(1)} | ${r.ratio.toFixed(3)} |`,
      ),
      "",
    ].join("\n");
    writeOutputs(options.outDir, {
      "benchmarks-ab.md": markdown,
      "benchmarks-ab.json": JSON.stringify({ variant, rounds }, null, 2),
    });
    return { files: ["benchmarks-ab.md", "benchmarks-ab.json"], rounds };
  });
}
