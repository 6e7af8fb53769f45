import { execFile, execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { pinned } from "./cpu-pinning.js";

const SCRIPT = fileURLToPath(new URL("../../wrk/post-plant.lua", import.meta.url));
const run = promisify(execFile);

export interface LoadOptions {
  baseUrl: string;
  connections: number;
  seconds: number;
  token: string;
  /** The first id this run sends (ascending) or the random seed (random). */
  firstId: number;
  order: "ascending" | "random";
  pin: string[];
}

/** What wrk measured over one run. */
export interface LoadResult {
  requests: number;
  seconds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  socketErrors: number;
}

/** wrk's version line, or undefined when wrk is not installed. */
export function wrkVersion(): string | undefined {
  try {
    execFileSync("wrk", ["-v"], { stdio: "pipe" });
  } catch (error) {
    // wrk -v prints its banner and exits 1.
    const output = String((error as { stdout?: Buffer }).stdout ?? "");
    return /^wrk \S+/.exec(output)?.[0];
  }
  return undefined;
}

/** One wrk run (one thread, keep-alive connections) posting unique plants to `baseUrl`. */
export async function runWrk(options: LoadOptions): Promise<LoadResult> {
  const [command, args] = pinned(options.pin, "wrk", [
    "-t1",
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    "--timeout",
    "10s",
    "-s",
    SCRIPT,
    options.baseUrl,
    "--",
    String(options.firstId),
    options.token,
    options.order,
  ]);
  const { stdout } = await run(command, args, { timeout: (options.seconds + 30) * 1000 });
  const line = /BENCH_RESULT (\{.*\})/.exec(stdout)?.[1];
  if (!line) throw new Error(`wrk printed no result:\n${stdout}`);
  const raw = JSON.parse(line) as {
    requests: number;
    durationMicros: number;
    p50Micros: number;
    p99Micros: number;
    non2xx: number;
    socketErrors: number;
  };
  const seconds = raw.durationMicros / 1e6;
  return {
    requests: raw.requests,
    seconds,
    requestsPerSecond: raw.requests / seconds,
    p50Ms: raw.p50Micros / 1000,
    p99Ms: raw.p99Micros / 1000,
    non2xx: raw.non2xx,
    socketErrors: raw.socketErrors,
  };
}
