import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { mintToken } from "../../../src/auth/mint-token.js";

const MAIN = fileURLToPath(new URL("../../../dist/main.js", import.meta.url));
const LOG_TAIL_CHARS = 64 * 1024;

export const RELIABILITY_SECRET = "reliability-suite-secret-of-at-least-32-chars";

/** A bearer token the servers started here accept. */
export const reliabilityToken = () => mintToken({ secret: RELIABILITY_SECRET, expiresInSeconds: 3600 });

export interface BuiltServer {
  child: ChildProcess;
  baseUrl: string;
  port: number;
  /** Resolves once the process has exited, with its exit code or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  alive: () => boolean;
  /** The last 64 KiB the process printed, for failure messages. */
  output: () => string;
  /** kill -9: no shutdown hook, no flush, no close of the database. */
  kill9: () => Promise<void>;
  /** SIGTERM and wait for the graceful exit. */
  stop: () => Promise<void>;
}

/**
 * Runs the built server (dist/main.js) with plain node on a free loopback port, as an operator would.
 * Only the tail of its output is kept, so long load runs do not grow the test's memory.
 */
export function startBuiltServer(env: Record<string, string>): Promise<BuiltServer> {
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? "", PORT: "0", HOST: "127.0.0.1", JWT_SECRET: RELIABILITY_SECRET, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-LOG_TAIL_CHARS);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const alive = () => child.exitCode === null && child.signalCode === null;

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`server did not start within 15 s:\n${output}`));
    }, 15_000);
    const onData = () => {
      const match = /"url":"http:\/\/127\.0\.0\.1:(\d+)"/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.stdout.off("data", onData);
      const port = Number(match[1]);
      resolve({
        child,
        port,
        baseUrl: `http://127.0.0.1:${port}`,
        exited,
        alive,
        output: () => output,
        kill9: async () => {
          if (alive()) child.kill("SIGKILL");
          await exited;
        },
        stop: async () => {
          if (alive()) child.kill("SIGTERM");
          await exited;
        },
      });
    };
    child.stdout.on("data", onData);
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}) before listening:\n${output}`));
    });
  });
}

/** Servers a test file started; `killAll()` in afterEach/afterAll leaves no process behind. */
export function serverRegistry() {
  const running: BuiltServer[] = [];
  return {
    async start(env: Record<string, string>): Promise<BuiltServer> {
      const server = await startBuiltServer(env);
      running.push(server);
      return server;
    },
    async killAll(): Promise<void> {
      await Promise.all(running.splice(0).map((server) => server.kill9()));
    },
  };
}
