import { join } from "node:path";
import { capCpu } from "./cpu-cap.js";
import { type ServerProcess, startServerProcess } from "./server-process.js";
import { tearDownWith } from "./teardown.js";
import { tempDir } from "./temp-dir.js";

export interface CappedServer extends ServerProcess {
  /** The server's SQLite file, for counting what it stored. */
  databaseFile: string;
  /**
   * False where the machine has no writable cgroup v1 cpu controller, or where its cap starved the server (see
   * `uncappedBecause`): the server ran uncapped.
   */
  capped: boolean;
  /** Why the server runs uncapped, when it does. */
  uncappedBecause?: string;
}

/** The capped server must answer PROBES health checks sent at once within PROBE_BUDGET_MS. */
const PROBE_BUDGET_MS = 5_000;
const PROBES = 200;

/**
 * Whether the capped server still answers: PROBES health checks at once (a few tens of milliseconds of its CPU, so
 * about a second at a twentieth of a core) within PROBE_BUDGET_MS. On some hosts the kernel's scheduler gives a
 * process that sleeps and wakes, as a server does, almost nothing under a small quota while a busy loop gets its
 * full share (measured on this project's 2-core VM: a trivial node:http server capped at 0.2 core answered 6-270
 * requests in 3 s, uncapped 100,000); a test of overload would then wait out its timeouts rather than test anything.
 */
async function answersUnderCap(baseUrl: string): Promise<boolean> {
  const signal = AbortSignal.timeout(PROBE_BUDGET_MS);
  try {
    await Promise.all(
      Array.from({ length: PROBES }, async () => (await fetch(`${baseUrl}/healthz`, { signal })).arrayBuffer()),
    );
    return true;
  } catch {
    return false;
  }
}

/**
 * The built server over a fresh SQLite file, held to `cores` of CPU in a cgroup (`periodUs` as capCpu takes it) once
 * `warmUp`, if given, has run uncapped. When the test (or file) ends it is killed (-9) and then its cgroup removed,
 * in that order: the kernel refuses to remove a cgroup that still holds a process.
 */
export async function startCappedServer(
  env: Record<string, string>,
  cpu: { cores: number; periodUs?: number; warmUp?: (server: ServerProcess) => Promise<void> },
): Promise<CappedServer> {
  const databaseFile = join(tempDir("plant-store-capped-"), "plants.db");
  const server = await startServerProcess({ DATABASE_URL: databaseFile, ...env }, { keepOutputChars: 64 * 1024 });
  let cap: ReturnType<typeof capCpu>;
  tearDownWith(async () => {
    await server.kill9();
    cap?.release();
  });
  await cpu.warmUp?.(server);
  cap = capCpu(server.child.pid!, cpu.cores, cpu.periodUs);
  if (cap === undefined)
    return { ...server, databaseFile, capped: false, uncappedBecause: "no writable cgroup v1 cpu controller" };
  if (!(await answersUnderCap(server.baseUrl))) {
    cap.lift();
    return {
      ...server,
      databaseFile,
      capped: false,
      uncappedBecause: `under a ${cpu.cores}-core cap it did not answer ${PROBES} health checks sent at once within ${PROBE_BUDGET_MS / 1000} s: this host's scheduler starves a capped server`,
    };
  }
  return { ...server, databaseFile, capped: true };
}
