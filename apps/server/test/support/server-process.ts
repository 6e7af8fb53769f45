import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { captureOutput } from "./child-output.js";
import { runCli } from "./cli-process.js";
import { tearDownWith } from "./teardown.js";
import { TEST_SECRET } from "./tokens.js";

// Shared with the workspaces that test the server from outside (tests/consumer, tests/parity) as
// `@plant-store/server/test-support/server-process`: one way to run the built server as a process.
const SERVER_DIR = fileURLToPath(new URL("../../", import.meta.url));
const MAIN = `${SERVER_DIR}dist/main.js`;

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  port: number;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the first match of `pattern` in stdout, waiting up to 5 s for it to be printed. */
  waitForStdout: (pattern: RegExp) => Promise<RegExpExecArray>;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  /** Resolves once the process has exited and all its output has been read (stdout() and stderr() are whole). */
  outputClosed: Promise<void>;
  /** Neither exited nor killed yet. */
  alive: () => boolean;
  /** What it printed on stdout then stderr, for failure messages. */
  output: () => string;
  /** kill -9 (no shutdown hook, no flush, no close of the database), then wait for the exit. */
  kill9: () => Promise<void>;
  /** SIGTERM, then wait for the graceful exit. */
  stop: () => Promise<void>;
}

/**
 * The one way to run the built server as a process in tests (the in-process app: test-server.ts).
 * Runs dist/main.js, or `options.main` (e.g. inside a deployed folder), with plain node
 * on a free port, as an operator would. `keepOutputChars` keeps only the tail of each stream, so long
 * load runs do not grow the test's memory. Resolves once it listens with its store open (`untilReady: false`:
 * once it listens, for tests of the wait). Killed (-9) when the test ends, or after the file when started
 * outside a test, unless it has exited already.
 */
export function startServerProcess(
  env: Record<string, string>,
  options: {
    main?: string;
    cwd?: string;
    keepOutputChars?: number;
    onSpawn?: (child: ChildProcess) => void;
    untilReady?: boolean;
  } = {},
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [options.main ?? MAIN], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "", PORT: "0", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  // For tests that signal the process before it has said where it listens.
  options.onSpawn?.(child);
  const captured = captureOutput(child, options.keepOutputChars);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const outputClosed = captured.closed.then(() => undefined);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`server did not start within 15 s:\n${captured.output()}`));
    }, 15_000);
    const onData = async () => {
      const match = /"url":"(http:\/\/[^"]+)"[^\n]*"ready":(true|false)/.exec(captured.stdout());
      if (!match) return;
      child.stdout.off("data", onData);
      // On a slow host the store's first open can outlast the moment the server gives it before saying where it
      // listens (ready: false); its open is then logged. Tests that watch that wait themselves (untilReady: false).
      if (match[2] === "false" && options.untilReady !== false) {
        try {
          await captured.waitFor("stdout", /"msg":"store open: ready"/, 15_000);
        } catch (error) {
          child.kill("SIGKILL");
          clearTimeout(timer);
          reject(error);
          return;
        }
      }
      clearTimeout(timer);
      const alive = () => child.exitCode === null && child.signalCode === null;
      const signalAndWait = async (signal: NodeJS.Signals) => {
        if (alive()) child.kill(signal);
        await exited;
      };
      resolve({
        child,
        baseUrl: match[1]!,
        port: Number(new URL(match[1]!).port),
        stdout: captured.stdout,
        stderr: captured.stderr,
        waitForStdout: (pattern) => captured.waitFor("stdout", pattern, 5_000),
        exited,
        outputClosed,
        alive,
        output: captured.output,
        kill9: () => signalAndWait("SIGKILL"),
        stop: () => signalAndWait("SIGTERM"),
      });
    };
    child.stdout.on("data", onData);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${captured.output()}`));
    });
  });
}

/** startServerProcess over environment variables a test file shares (merged with each call's). */
export function serverProcesses(
  base: Record<string, string> = {},
  options: { keepOutputChars?: number; untilReady?: boolean } = {},
) {
  return {
    start: (env: Record<string, string> = {}): Promise<ServerProcess> =>
      startServerProcess({ ...base, ...env }, options),
  };
}

/** Runs the built server expecting it to refuse to start; resolves with its exit code and output. */
export async function runServerExpectingExit(
  env: Record<string, string>,
  { cwd }: { cwd?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [MAIN], {
    cwd,
    env: { PATH: process.env.PATH ?? "", PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const captured = captureOutput(child);
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  const code = await captured.closed;
  clearTimeout(timer);
  return { code, stdout: captured.stdout(), stderr: captured.stderr() };
}

/** A bearer token from the server's own `pnpm run token` CLI, for the key configured in `env` (JWT_SECRET…). */
async function issueTokenWithCli(env: Record<string, string>, subject: string): Promise<string> {
  const issued = await runCli(["issue-token", subject], env, { cwd: SERVER_DIR });
  if (issued.code !== 0) throw new Error(`issue-token exited with ${issued.code}: ${issued.stderr}`);
  return issued.stdout.trim();
}

/**
 * The built server in production mode on 127.0.0.1, over a fresh SQLite file in a temp folder, with a bearer
 * token from its own CLI: what tests from outside the server need. `stop()` ends it, waits until all its output
 * has been read (`stderr()` is then whole) and removes the folder; the end of the test (or file) does too.
 */
export async function startServerWithToken(
  env: Record<string, string>,
  subject: string,
): Promise<{ baseUrl: string; token: string; stderr(): string; stop(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), "plant-store-server-"));
  const serverEnv = {
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    DATABASE_URL: join(dataDir, "plants.db"),
    // No load balancer routes to it: stop without production's default wait before closing the listener.
    SHUTDOWN_DELAY_MS: "0",
    ...env,
  };
  const removeData = () => rmSync(dataDir, { recursive: true, force: true });
  const server = await startServerProcess(serverEnv, { keepOutputChars: 64 * 1024 }).catch((error: unknown) => {
    removeData();
    throw error;
  });
  const stop = async () => {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGTERM");
    await server.outputClosed;
    removeData();
  };
  tearDownWith(stop);
  try {
    return { baseUrl: server.baseUrl, token: await issueTokenWithCli(serverEnv, subject), stderr: server.stderr, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * The built server over the SQLite file `databaseFile`, signing with TEST_SECRET (tokens from tokens.ts or signToken
 * verify): production mode on 127.0.0.1, no shutdown delay, as the backup and restore tests run it beside their CLI.
 */
export function startServerOnFile(
  databaseFile: string,
  options: Parameters<typeof startServerProcess>[1] = {},
): Promise<ServerProcess> {
  return startServerProcess(
    {
      DATABASE_URL: databaseFile,
      JWT_SECRET: TEST_SECRET,
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      SHUTDOWN_DELAY_MS: "0",
    },
    options,
  );
}

/** A create's body as text, as a client would send it. */
export const plantBody = (id: number, name: string) => `{"id": ${id}, "name": "${name}"}`;

/** POST /plants to a server process with `token` and `body` as given. */
export const postPlant = (server: { baseUrl: string }, token: string, body: string) =>
  fetch(`${server.baseUrl}/plants`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body,
  });
