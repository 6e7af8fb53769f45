import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { pinned } from "./cpu-pinning.js";

const SERVER_MAIN = fileURLToPath(import.meta.resolve("@plant-store/server/main"));
/** The Node flags the server's start script (and docs/deploying.md) run it with, read from that script so the two cannot drift. */
export const DEPLOYED_NODE_FLAGS = startScriptNodeFlags();
/** The environment docs/deploying.md runs it with besides its configuration: glibc's malloc kept to 2 arenas. */
const DEPLOYED_ENV = { MALLOC_ARENA_MAX: "2" };
const BASELINES = fileURLToPath(new URL("../baselines/", import.meta.url));

/** A server under test, running as its own process. */
export interface RunningServer {
  key: ServerKey;
  label: string;
  pid: number;
  baseUrl: string;
  /** SIGTERM, then SIGKILL after 10 s; resolves once the process has exited. */
  stop(): Promise<void>;
}

export type ServerKey =
  | "plant-store"
  | "bare-express"
  | "bare-node-http"
  | "fastify-straightforward"
  | "fastify-tuned"
  | "express-as-served";

export const SERVER_LABELS: Record<ServerKey, string> = {
  "plant-store": "(1) Plant Store, full pipeline",
  "bare-express": "(2) bare Express 5 + express.json() [floor]",
  "bare-node-http": "(3) bare node:http [platform limit]",
  "fastify-straightforward": "(4) Fastify 5 peer, straightforward",
  "fastify-tuned": "(5) Fastify 5 peer, tuned",
  "express-as-served": "(6) Express as Plant Store runs it [its framework floor]",
};

/** Short names for the chart's axis and the profile's side-by-side columns. */
export const SERVER_SHORT_LABELS: Record<ServerKey, string> = {
  "plant-store": "(1) Plant Store",
  "bare-express": "(2) bare Express",
  "bare-node-http": "(3) node:http",
  "fastify-straightforward": "(4) Fastify straightforward",
  "fastify-tuned": "(5) Fastify tuned",
  "express-as-served": "(6) Express as served",
};

export interface StartOptions {
  key: ServerKey;
  /** taskset prefix, or [] */
  pin: string[];
  /** A folder for this server's database and log files. */
  dir: string;
  secret: string;
  /** A label other than the standard one (the prefill mode runs several Plant Stores). */
  label?: string;
  /** For the Plant Store: an existing database file to serve. */
  databaseFile?: string;
  /** For the Plant Store: another build's main.js (an A/B of an optimisation), instead of apps/server/dist. */
  main?: string;
  /** Extra environment: a Plant Store variant with a switch on (tracing, response validation), or a peer's (UNDER_PRESSURE). */
  env?: Record<string, string>;
  /** Extra Node flags (e.g. --cpu-prof for the profile mode); the Plant Store's come after its start script's. */
  nodeArgs?: string[];
}

const STARTUP_TIMEOUT_MS = 15_000;

/** Starts one server process and resolves once it accepts connections. */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const label = options.label ?? SERVER_LABELS[options.key];
  const databaseFile = options.databaseFile ?? join(options.dir, "plants.db");
  const logFile = join(options.dir, "server.log");
  if (options.key === "plant-store") {
    // The built server as an operator runs it: production mode, logs at info on stdout into a file, and
    // Node started as docs/deploying.md starts it (the young generation capped, Node 20's own default; two malloc arenas).
    // Truncated: the address is read from this run's first "listening" line.
    const log = openSync(logFile, "w");
    const nodeArgs = [...DEPLOYED_NODE_FLAGS, ...(options.nodeArgs ?? [])];
    const [command, args] = pinned(options.pin, process.execPath, [...nodeArgs, options.main ?? SERVER_MAIN]);
    const child = spawn(command, args, {
      env: {
        PATH: process.env.PATH ?? "",
        ...DEPLOYED_ENV,
        NODE_ENV: "production",
        HOST: "127.0.0.1",
        PORT: "0",
        LOG_LEVEL: "info",
        DATABASE_URL: databaseFile,
        JWT_SECRET: options.secret,
        // Production's 5 s delay lets load balancers notice a shutdown; nothing routes here, so stop at once.
        SHUTDOWN_DELAY_MS: "0",
        ...options.env,
      },
      stdio: ["ignore", log, "pipe"],
    });
    closeSync(log);
    const baseUrl = await waitFor(
      child,
      label,
      () => /"url":"(http:\/\/[^"]+)"/.exec(readFileSync(logFile, "utf8"))?.[1],
    );
    return running(options.key, label, child, baseUrl);
  }
  const script = join(BASELINES, `${options.key}.js`);
  const peerArgs = options.key.startsWith("fastify") ? [databaseFile, options.secret, logFile] : [];
  // The server's own framework floor runs the way the server does, so that the two differ only in the server's work.
  const asServer = options.key === "express-as-served";
  const nodeArgs = [...(asServer ? DEPLOYED_NODE_FLAGS : []), ...(options.nodeArgs ?? [])];
  const [command, args] = pinned(options.pin, process.execPath, [...nodeArgs, script, ...peerArgs]);
  const child = spawn(command, args, {
    env: { ...process.env, ...(asServer ? DEPLOYED_ENV : {}), ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  const port = await waitFor(child, label, () => /listening on (\d+)/.exec(stdout)?.[1]);
  return running(options.key, label, child, `http://127.0.0.1:${port}`);
}

/** The flags between `node` and `dist/main.js` in apps/server's `start` script. */
function startScriptNodeFlags(): string[] {
  const manifest = readFileSync(fileURLToPath(import.meta.resolve("@plant-store/server/package.json")), "utf8");
  const start = (JSON.parse(manifest) as { scripts: { start: string } }).scripts.start;
  const [command, ...args] = start.split(" ");
  if (command !== "node" || args.at(-1) !== "dist/main.js") {
    throw new Error(`apps/server's start script is not "node <flags> dist/main.js": ${start}`);
  }
  return args.slice(0, -1);
}

function waitFor(child: ChildProcess, label: string, probe: () => string | undefined): Promise<string> {
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const onExit = (code: number | null) =>
      reject(new Error(`${label} exited with ${code} before listening:\n${stderr}`));
    child.once("exit", onExit);
    const poll = setInterval(() => {
      const found = probe();
      if (found !== undefined) {
        clearInterval(poll);
        child.off("exit", onExit);
        resolve(found);
      } else if (Date.now() - started > STARTUP_TIMEOUT_MS) {
        clearInterval(poll);
        child.kill("SIGKILL");
        reject(new Error(`${label} did not listen within ${STARTUP_TIMEOUT_MS} ms:\n${stderr}`));
      }
    }, 50);
  });
}

function running(key: ServerKey, label: string, child: ChildProcess, baseUrl: string): RunningServer {
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  return {
    key,
    label,
    pid: child.pid!,
    baseUrl,
    async stop() {
      child.kill("SIGTERM");
      const force = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(force);
    },
  };
}
