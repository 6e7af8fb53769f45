import { join } from "node:path";
import { capCpu } from "./cpu-cap.js";
import { type ServerProcess, startServerProcess } from "./server-process.js";
import { tearDownWith } from "./teardown.js";
import { tempDir } from "./temp-dir.js";

export interface CappedServer extends ServerProcess {
  /** The server's SQLite file, for counting what it stored. */
  databaseFile: string;
  /** False where the machine has no writable cgroup v1 cpu controller: the server ran uncapped. */
  capped: boolean;
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
  return { ...server, databaseFile, capped: cap !== undefined };
}
