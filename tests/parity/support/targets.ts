import { execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { startFakePlantStore } from "@plant-store/client/testing";

/** Where the scenarios are sent: a base URL, a bearer token it accepts, and how to stop it. */
export interface Target {
  baseUrl: string;
  token: string;
  stop(): Promise<void>;
}

/** The body limit both targets run with, small enough for a 413 scenario to stay cheap. */
export const BODY_LIMIT_BYTES = 64 * 1024;

const serverDir = dirname(createRequire(import.meta.url).resolve("@plant-store/server/package.json"));

/** The built server (apps/server/dist/main.js) as a process on 127.0.0.1, port 0, SQLite in a temp folder, a minted token. */
export async function startRealServer(): Promise<Target> {
  const dataDir = mkdtempSync(join(tmpdir(), "plant-store-parity-"));
  const env = {
    PATH: process.env.PATH ?? "",
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: "info",
    JWT_SECRET: "parity-tests-secret-of-at-least-32-chars",
    DATABASE_URL: join(dataDir, "plants.db"),
    BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES),
  };
  const child = spawn(process.execPath, [join(serverDir, "dist/main.js")], { env, stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const baseUrl = await new Promise<string>((resolve, reject) => {
      let out = "";
      const timer = setTimeout(() => reject(new Error(`server did not listen within 15 s:\n${out}`)), 15_000);
      child.stdout.on("data", (chunk) => {
        out += chunk;
        const match = /"url":"(http:\/\/[^"]+)"/.exec(out);
        if (match) {
          clearTimeout(timer);
          // Keep draining the access log without holding on to it.
          child.stdout.removeAllListeners("data");
          child.stdout.resume();
          resolve(match[1]!);
        }
      });
      child.stderr.on("data", (chunk) => {
        out += chunk;
      });
      exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`server exited before listening:\n${out}`));
      });
    });
    const token = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [join(serverDir, "dist/mint-token.js"), "parity-tests"], { cwd: serverDir, env }, (error, stdout) =>
        error ? reject(error) : resolve(stdout.trim()),
      ),
    );
    return { baseUrl, token, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The client's fake, with the same body limit; it accepts any well-formed bearer token. */
export async function startFake(): Promise<Target> {
  const fake = await startFakePlantStore({ bodyLimitBytes: BODY_LIMIT_BYTES });
  return { baseUrl: fake.url, token: "any-token-will-do", stop: () => fake.close() };
}
