import { execFile, execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ChildOutput, captureOutput } from "@plant-store/test-support/child-output";
import type { CliResult } from "./cli-process.js";

export const SERVER_DIR = fileURLToPath(new URL("../../", import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

const PNPM = `pnpm@${(JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { packageManager: string }).packageManager.split("@")[1]}`;

let pnpmBinary: string | undefined;

/**
 * The pnpm running this test (`pnpm run test` sets npm_execpath), else the docs' one, from npx's cache. Run as
 * itself, not through npx, so that a signal sent to it reaches pnpm; on PATH, as an operator's is, for turbo.
 */
function pnpm(args: string[], env: Record<string, string>): [string, string[], NodeJS.ProcessEnv] {
  const execPath = process.env.npm_execpath;
  pnpmBinary ??=
    execPath && /pnpm$/.test(execPath)
      ? execPath
      : execFileSync("npx", ["-y", "-p", PNPM, "-c", "command -v pnpm"], { encoding: "utf8" }).trim();
  const path = `${dirname(pnpmBinary)}${delimiter}${process.env.PATH ?? ""}`;
  return [pnpmBinary, args, { ...process.env, PATH: path, ...env }];
}

/**
 * `pnpm --silent <script> …` as the docs tell an operator to run it, build included (a turbo cache hit once the test
 * task's own build is done), at the repository's root or in `cwd`, with `env` over this process's environment.
 * Killed after 60 s.
 */
export function runRootScript(
  [script, ...args]: string[],
  env: Record<string, string>,
  { cwd = REPO_ROOT }: { cwd?: string } = {},
): Promise<CliResult> {
  const [command, commandArgs, commandEnv] = pnpm(["--silent", script!, ...args], env);
  return new Promise((resolve) => {
    execFile(command, commandArgs, { cwd, env: commandEnv, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr }),
    );
  });
}

/** The same, left running at the root: its output as it comes, and pnpm's pid to signal. Killed (-9) when the test ends. */
export function startRootScript(
  [script, ...args]: string[],
  env: Record<string, string>,
): ChildOutput & { pid: number } {
  const [command, commandArgs, commandEnv] = pnpm(["--silent", script!, ...args], env);
  const child = spawn(command, commandArgs, { cwd: REPO_ROOT, env: commandEnv, stdio: ["ignore", "pipe", "pipe"] });
  return { ...captureOutput(child), pid: child.pid! };
}
