import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { captureOutput } from "@plant-store/test-support/child-output";

/** The built `plant-store` bin. */
export const CLI = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
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
 * Starts the built `plant-store` CLI (dist/cli/main.js) as an operator would, with only `env` and PATH in its environment,
 * in `cwd`. One still running when the test finishes is killed (-9) then.
 */
export function startCli(args: string[], env: Record<string, string> = {}, { cwd }: { cwd?: string } = {}): CliProcess {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const captured = captureOutput(child);
  return {
    child,
    stdout: captured.stdout,
    stderr: captured.stderr,
    waitForStdout: (pattern) => captured.waitFor("stdout", pattern, 20_000),
    waitForStderr: (pattern) => captured.waitFor("stderr", pattern, 20_000),
    exited: captured.closed,
  };
}

/** Runs the CLI to its end (killed after 60 s): its exit code and everything it printed. */
export async function runCli(
  args: string[],
  env: Record<string, string> = {},
  options: { cwd?: string } = {},
): Promise<CliResult> {
  const cli = startCli(args, env, options);
  const timer = setTimeout(() => cli.child.kill("SIGKILL"), 60_000);
  const code = await cli.exited;
  clearTimeout(timer);
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}
