import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { captureOutput } from "@plant-store/test-support/child-output";
import * as capped from "@plant-store/test-support/capped-server";
import * as processes from "@plant-store/test-support/server-process";
import type { ServerProcess } from "@plant-store/test-support/server-process";
import { CLI } from "./cli-process.js";
import { TEST_SECRET } from "./tokens.js";

export type { ServerProcess };

const MAIN = fileURLToPath(new URL("../../dist/main.js", import.meta.url));

/** The server's JSON log lines in `stdout` (a process's output), parsed; other lines (the banner) left out. */
export const logLines = (stdout: string) =>
  stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/**
 * This package's built server as a process (the in-process app: test-server.ts); `options.main` runs another copy
 * (e.g. inside a deployed folder).
 */
export function startServerProcess(
  env: Record<string, string>,
  { main = MAIN, ...options }: Parameters<typeof processes.startServerProcess>[2] & { main?: string } = {},
): Promise<ServerProcess> {
  return processes.startServerProcess(main, env, options);
}

/** startServerWithToken of @plant-store/test-support over this package's built server. */
export const startServerWithToken = (env: Record<string, string>, subject: string) =>
  processes.startServerWithToken({ main: MAIN, cli: CLI }, env, subject);

/** startCappedServer of @plant-store/test-support over this package's built server. */
export const startCappedServer = (env: Record<string, string>, cpu: Parameters<typeof capped.startCappedServer>[2]) =>
  capped.startCappedServer(MAIN, env, cpu);

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
