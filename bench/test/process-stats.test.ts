import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { cpuPerRequestByRole, cpuSeconds, THREAD_ROLES, threadCpuSeconds } from "../src/process-stats.js";

describe.skipIf(process.platform !== "linux")("CPU time per thread role, from /proc", () => {
  it("counts a thread named like the server's SQLite writer apart, and the roles add up to the process's CPU", async () => {
    // A real thread under the writer's name, kept busy for 300 ms.
    const busy = new Worker("const end = Date.now() + 300; while (Date.now() < end);", { eval: true, name: "sqlite-writer-thread" });
    const exited = new Promise((resolve) => busy.once("exit", resolve));
    await new Promise((resolve) => setTimeout(resolve, 250));
    const byRole = threadCpuSeconds(process.pid);
    const total = cpuSeconds(process.pid);
    await exited;

    expect(byRole["SQLite writer thread"]).toBeGreaterThan(0.1);
    expect(byRole["main thread"]).toBeGreaterThan(0);
    const sum = THREAD_ROLES.reduce((all, role) => all + byRole[role], 0);
    // Read a moment apart, so within a few clock ticks of each other.
    expect(Math.abs(sum - total)).toBeLessThan(0.05);
  });

  it("divides each role's CPU between two readings by the requests, with a tick read into the wrong role clamped at zero", () => {
    const before = { "main thread": 1, "SQLite writer thread": 0.1, "V8 helper threads (GC, compiler)": 0.05, "other threads": 0.02 };
    const after = { "main thread": 1.5, "SQLite writer thread": 0.15, "V8 helper threads (GC, compiler)": 0.06, "other threads": 0.01 };
    expect(cpuPerRequestByRole(before, after, 10_000)).toEqual({
      "main thread": expect.closeTo(50, 9),
      "SQLite writer thread": expect.closeTo(5, 9),
      "V8 helper threads (GC, compiler)": expect.closeTo(1, 9),
      "other threads": 0,
    });
  });
});
