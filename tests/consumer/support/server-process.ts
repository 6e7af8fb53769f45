import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { run } from "./run.js";

const serverDir = dirname(createRequire(import.meta.url).resolve("@plant-store/server/package.json"));
const SECRET = "consumer-tests-secret-at-least-32-chars!";

export interface RunningServer {
  baseUrl: string;
  /** A bearer token the server accepts, minted by the server's own `token` script. */
  token: string;
  stop(): Promise<void>;
}

/** Starts the built server (apps/server/dist/main.js) with plain node on 127.0.0.1, port 0, a fresh SQLite file. */
export async function startServer(options: { corsOrigins?: string[] } = {}): Promise<RunningServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "plant-store-consumer-db-"));
  const env = {
    PATH: process.env.PATH ?? "",
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: "info",
    JWT_SECRET: SECRET,
    DATABASE_URL: join(dataDir, "plants.db"),
    CORS_ORIGINS: (options.corsOrigins ?? []).join(","),
    // No load balancer routes to it: stop without production's default wait before closing the listener.
    SHUTDOWN_DELAY_MS: "0",
  };
  const child: ChildProcess = spawn(process.execPath, [join(serverDir, "dist/main.js")], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const baseUrl = await new Promise<string>((resolve, reject) => {
      let out = "";
      let err = "";
      const timer = setTimeout(() => reject(new Error(`server did not listen within 15 s:\n${out}\n${err}`)), 15_000);
      child.stderr?.on("data", (chunk) => {
        err += chunk;
      });
      child.stdout?.on("data", (chunk) => {
        out += chunk;
        const match = /"url":"(http:\/\/[^"]+)"/.exec(out);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
      exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`server exited before listening:\n${out}\n${err}`));
      });
    });
    const { stdout } = await run(process.execPath, [join(serverDir, "dist/cli/issue-token.js"), "consumer-tests"], {
      cwd: serverDir,
      env,
    });
    return { baseUrl, token: stdout.trim(), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
