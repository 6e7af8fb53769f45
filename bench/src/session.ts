import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import jwt from "jsonwebtoken";
import { type CpuPinning, cpuPinning } from "./cpu-pinning.js";
import { describeEnvironment } from "./environment.js";
import { type RunningServer, type StartOptions, startServer } from "./servers.js";
import { wrkVersion } from "./wrk-load.js";

/** What every mode shares: a secret and a token every server accepts, a scratch folder, the servers it started. */
export interface Session {
  secret: string;
  token: string;
  pin: CpuPinning;
  dir: string;
  environment: Record<string, string>;
  startedAt: Date;
  start(options: Omit<StartOptions, "pin" | "dir" | "secret"> & { name: string }): Promise<RunningServer>;
  /** Something else the session must stop when it ends (after its servers). */
  onClose(close: () => Promise<void>): void;
}

/** Runs `body` with a fresh session; every server it started is stopped and the scratch folder removed. */
export async function withSession<T>(body: (session: Session) => Promise<T>): Promise<T> {
  if (wrkVersion() === undefined) {
    throw new Error("wrk is not installed: apt-get install wrk (Debian/Ubuntu) and run again");
  }
  const secret = randomBytes(32).toString("base64url");
  const dir = mkdtempSync(join(tmpdir(), "plant-store-bench-"));
  const servers: RunningServer[] = [];
  const closers: (() => Promise<void>)[] = [];
  const session: Session = {
    secret,
    token: jwt.sign({}, secret, { algorithm: "HS256", subject: "bench", expiresIn: "6h" }),
    pin: cpuPinning(),
    dir,
    environment: describeEnvironment(dir),
    startedAt: new Date(),
    async start(options) {
      const serverDir = join(dir, options.name);
      mkdirSync(serverDir, { recursive: true });
      const server = await startServer({ ...options, pin: session.pin.server, dir: serverDir, secret });
      servers.push(server);
      return server;
    },
    onClose(close) {
      closers.push(close);
    },
  };
  const stopAll = async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await Promise.all(closers.map((close) => close()));
  };
  // Ctrl-C must not leave servers running on the shared machine.
  const onSignal = () => {
    stopAll().finally(() => {
      rmSync(dir, { recursive: true, force: true });
      process.exit(130);
    });
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    return await body(session);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await stopAll();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Writes the report files into `outDir`, creating it. */
export function writeOutputs(outDir: string, files: Record<string, string>): void {
  mkdirSync(outDir, { recursive: true });
  for (const [name, content] of Object.entries(files)) writeFileSync(join(outDir, name), content);
}
