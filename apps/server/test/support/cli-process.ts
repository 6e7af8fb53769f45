import { type ChildProcess, execFile, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { onTestFinished } from "vitest";

const CLI = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built `plant-store` CLI (dist/cli.js) as an operator would, with only `env` and PATH in its environment, in `cwd`. */
export function runCli(args: string[], env: Record<string, string> = {}, { cwd }: { cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd, env: { PATH: process.env.PATH ?? "", ...env }, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr }),
    );
  });
}

export interface CliProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the first match of `pattern` in stdout, waiting up to 20 s for it to be printed. */
  waitForStdout: (pattern: RegExp) => Promise<RegExpExecArray>;
  /** The same for stderr. */
  waitForStderr: (pattern: RegExp) => Promise<RegExpExecArray>;
  /** Resolves with the exit code once all its output has been read. */
  exited: Promise<number | null>;
}

/**
 * Starts the built CLI for a long-running command (`backup --dir`), with only `env` and PATH in its environment.
 * Inside a test only: one still running when the test finishes is killed (-9) then.
 */
export function startCli(args: string[], env: Record<string, string> = {}): CliProcess {
  const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk) => {
    out += chunk;
  });
  child.stderr.on("data", (chunk) => {
    err += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  onTestFinished(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  });
  const waitFor = async (pattern: RegExp, text: () => string) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const found = pattern.exec(text());
      if (found) return found;
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`stdout never matched ${pattern}:\n${out}\n${err}`);
      await new Promise((wake) => setTimeout(wake, 50));
    }
  };
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitForStdout: (pattern) => waitFor(pattern, () => out),
    waitForStderr: (pattern) => waitFor(pattern, () => err),
    exited,
  };
}
