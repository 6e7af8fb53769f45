import { join } from "node:path";
import { type CpuCap, cpuCap } from "./cpu-cap.js";
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

/** PROBE_LANES health checks at a time for PROBE_MS: at least PROBES_PER_CORE_SECOND a second per core of the cap. */
const PROBE_MS = 2_000;
const PROBE_LANES = 20;
const PROBES_PER_CORE_SECOND = 6_000;

/**
 * Whether the capped server still serves: a closed loop of health checks for PROBE_MS must get at least
 * PROBES_PER_CORE_SECOND a second per core of the cap, about half of what a working cap gives (a check costs the
 * server 64-92 us of CPU, measured uncapped). On some hosts the kernel's scheduler gives a process that sleeps and
 * wakes, as a server does, a small part of a small quota while a busy loop gets all of it (measured on this project's
 * 2-core VM: a trivial node:http server capped at 0.2 core answered 6-270 requests in 3 s, uncapped 100,000; the
 * server's health checks at 0.1 core came back at 160 a second); a test of overload would then wait out its timeouts
 * rather than test anything.
 */
async function servesUnderCap(baseUrl: string, cores: number): Promise<boolean> {
  const deadline = performance.now() + PROBE_MS;
  let answered = 0;
  const lane = async () => {
    while (performance.now() < deadline) {
      const left = deadline - performance.now();
      try {
        await (
          await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(Math.max(1, Math.ceil(left))) })
        ).arrayBuffer();
        answered++;
      } catch {
        return;
      }
    }
  };
  await Promise.all(Array.from({ length: PROBE_LANES }, lane));
  return answered >= (PROBES_PER_CORE_SECOND * cores * PROBE_MS) / 1000;
}

/**
 * The built server (`main`, its dist/main.js) over a fresh SQLite file, held to `cores` of CPU in a cgroup (`periodUs` as cpuCap takes it) once
 * `warmUp`, if given, has run uncapped. When the test (or file) ends it is killed (-9) and then its cgroup removed,
 * in that order: the kernel refuses to remove a cgroup that still holds a process.
 */
export async function startCappedServer(
  main: string,
  env: Record<string, string>,
  cpu: { cores: number; periodUs?: number; warmUp?: (server: ServerProcess) => Promise<void> },
): Promise<CappedServer> {
  const databaseFile = join(tempDir("plant-store-capped-"), "plants.db");
  const server = await startServerProcess(main, { DATABASE_URL: databaseFile, ...env }, { keepOutputChars: 64 * 1024 });
  let cap: CpuCap | undefined;
  tearDownWith(async () => {
    await server.kill9();
    cap?.close();
  });
  await cpu.warmUp?.(server);
  const pid = server.child.pid!;
  cap = cpuCap(cpu.cores, cpu.periodUs, `test-${pid}`, { precedence: false });
  if (!cap.capped) return { ...server, databaseFile, capped: false, uncappedBecause: cap.uncappedBecause };
  cap.add(pid);
  if (!(await servesUnderCap(server.baseUrl, cpu.cores))) {
    cap.lift(pid);
    return {
      ...server,
      databaseFile,
      capped: false,
      uncappedBecause: `under a ${cpu.cores}-core cap it answered under ${PROBES_PER_CORE_SECOND * cpu.cores} health checks a second: this host's scheduler starves a capped server`,
    };
  }
  return { ...server, databaseFile, capped: true };
}
