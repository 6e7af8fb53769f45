import type { ChildProcess } from "node:child_process";
import { signToken } from "../../../src/auth/sign-token.js";
import { startServerProcess } from "../../support/server-process.js";

const LOG_TAIL_CHARS = 64 * 1024;

export const RELIABILITY_SECRET = "reliability-suite-secret-of-at-least-32-chars";

/** A bearer token the servers started here accept. */
export const reliabilityToken = () => signToken({ secret: RELIABILITY_SECRET, expiresInSeconds: 3600 });

export interface BuiltServer {
  child: ChildProcess;
  baseUrl: string;
  port: number;
  /** Resolves once the process has exited, with its exit code or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  alive: () => boolean;
  /** The last 64 KiB the process printed on each stream, for failure messages. */
  output: () => string;
  /** kill -9: no shutdown hook, no flush, no close of the database. */
  kill9: () => Promise<void>;
  /** SIGTERM and wait for the graceful exit. */
  stop: () => Promise<void>;
}

/** The built server as the reliability suites drive it: the shared process runner plus kill -9. */
export async function startBuiltServer(env: Record<string, string>): Promise<BuiltServer> {
  const server = await startServerProcess(
    { HOST: "127.0.0.1", JWT_SECRET: RELIABILITY_SECRET, VALIDATE_RESPONSES: "true", ...env },
    { keepOutputChars: LOG_TAIL_CHARS },
  );
  const { child } = server;
  const exited = server.exited.then((code) => ({ code, signal: child.signalCode }));
  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    child,
    port: Number(new URL(server.baseUrl).port),
    baseUrl: server.baseUrl,
    exited,
    alive,
    output: () => `${server.stdout()}${server.stderr()}`,
    kill9: async () => {
      if (alive()) child.kill("SIGKILL");
      await exited;
    },
    stop: async () => {
      if (alive()) child.kill("SIGTERM");
      await exited;
    },
  };
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
