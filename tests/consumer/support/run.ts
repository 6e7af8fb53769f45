import { execFile } from "node:child_process";

export interface RunResult {
  stdout: string;
  stderr: string;
}

/** Runs a program to completion (no shell) and rejects with its output when it exits non-zero. */
export function run(
  file: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { cwd: options.cwd, env: options.env ?? process.env, timeout: options.timeoutMs ?? 180_000, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        if (error)
          reject(
            new Error(`${file} ${args.join(" ")} failed in ${options.cwd}: ${error.message}\n${stdout}\n${stderr}`),
          );
        else resolve({ stdout, stderr });
      },
    );
  });
}

/** The environment for npm and pnpm children: ours without the settings pnpm sets for the running script. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    // npm_config_* from the enclosing pnpm run (registry, nodedir, workspace dir…) must not leak into
    // an npm install in a scratch project, which would then read them as its own settings.
    if (key === "npm_config_nodedir" || (!/^npm_/i.test(key) && !/^(PNPM|pnpm_)/.test(key))) env[key] = value;
  }
  return { ...env, npm_config_fund: "false", npm_config_audit: "false", npm_config_update_notifier: "false", ...extra };
}

/** How to invoke pnpm: the one running this test (npm_execpath) when there is one, else pnpm from PATH. */
export function pnpmCommand(): { file: string; prefix: string[] } {
  const execPath = process.env.npm_execpath;
  if (execPath && /pnpm/i.test(execPath)) {
    return /\.(c|m)?js$/.test(execPath)
      ? { file: process.execPath, prefix: [execPath] }
      : { file: execPath, prefix: [] };
  }
  return { file: "pnpm", prefix: [] };
}
