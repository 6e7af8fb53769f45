import { configDefaults, defineConfig } from "vitest/config";

// Files that load the machine (thousands of requests, kill -9 loops, several server processes) or hold a server
// process to a wall-clock bound: run one at a time, after the others, so no other file's work stretches them.
const ALONE = [
  "test/reliability/crash-durability.test.ts",
  "test/reliability/hostile-input.test.ts",
  "test/reliability/hostile-http.test.ts",
  "test/reliability/connection-abuse.test.ts",
  "test/scale-out.test.ts",
  "test/shutdown-drain.test.ts",
  "test/outage.test.ts",
  "test/tracing-collector-down.test.ts",
  "test/backup-restore.test.ts",
  "test/admission-process.test.ts",
  "test/copy-store.test.ts",
  "test/waiting-start.test.ts",
  "test/auth-rotation-process.test.ts",
];

export default defineConfig({
  test: {
    // Many tests start the built server or the CLI as processes, several per test (~3 s each on this shared
    // machine, ~4.5 s with tracing and a collector, 7-10 s through pnpm), which on a slow host ran past vitest's
    // 5 s default, and on a contended one past 20 s. The limit only catches a hung test; the tests' own time
    // bounds stay in their assertions, and speed is the benchmark's business.
    testTimeout: 60_000,
    projects: [
      {
        extends: true,
        // The rest mostly wait (on a process starting, a socket, a SQLite commit): two files at a time overlap
        // those waits (vitest's default on two cores is one file at a time).
        test: {
          name: "server",
          exclude: [...configDefaults.exclude, ...ALONE],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: "server-alone", include: ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
