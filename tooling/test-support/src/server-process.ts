import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { join } from "node:path";
import { captureOutput } from "./child-output.js";
import { tearDownWith } from "./teardown.js";

/** The built server's two entry files: `main` (the server) and `cli` (`plant-store`), as its package exports them. */
export interface ServerEntries {
  main: string;
  cli: string;
}

/**
 * The entries of the `@plant-store/server` that the package at `from` (its `import.meta.url`) depends on: this
 * package depends on no server, so the server's own tests can depend on it.
 */
export function builtServerEntries(from: string): ServerEntries {
  const require = createRequire(from);
  return { main: require.resolve("@plant-store/server/main"), cli: require.resolve("@plant-store/server/cli") };
}

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
 * The one way to run the built server as a process in tests: `main` (the server's dist/main.js, or one inside a
 * deployed folder) with plain node on a free port, as an operator would. `keepOutputChars` keeps only the tail of each stream, so long
 * load runs do not grow the test's memory. Resolves once it listens with its store open (`untilReady: false`:
 * once it listens, for tests of the wait). Killed (-9) when the test ends, or after the file when started
 * outside a test, unless it has exited already.
 */
export function startServerProcess(
  main: string,
  env: Record<string, string>,
  options: {
    cwd?: string;
    keepOutputChars?: number;
    onSpawn?: (child: ChildProcess) => void;
    untilReady?: boolean;
  } = {},
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [main], {
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

/** A bearer token from the server's own `plant-store issue-token` (`cli`), for the key configured in `env` (JWT_SECRET…). */
export async function issueTokenWithCli(cli: string, env: Record<string, string>, subject: string): Promise<string> {
  const child = spawn(process.execPath, [cli, "issue-token", subject], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const captured = captureOutput(child);
  const code = await captured.closed;
  if (code !== 0) throw new Error(`issue-token exited with ${code}: ${captured.stderr()}`);
  return captured.stdout().trim();
}

/**
 * The built server in production mode on 127.0.0.1, over a fresh SQLite file in a temp folder, with a bearer
 * token from its own CLI: what tests from outside the server need. `stop()` ends it, waits until all its output
 * has been read (`stderr()` is then whole) and removes the folder; the end of the test (or file) does too.
 */
export async function startServerWithToken(
  entries: ServerEntries,
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
  const server = await startServerProcess(entries.main, serverEnv, { keepOutputChars: 64 * 1024 }).catch(
    (error: unknown) => {
      removeData();
      throw error;
    },
  );
  const stop = async () => {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGTERM");
    await server.outputClosed;
    removeData();
  };
  tearDownWith(stop);
  try {
    return {
      baseUrl: server.baseUrl,
      token: await issueTokenWithCli(entries.cli, serverEnv, subject),
      stderr: server.stderr,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
