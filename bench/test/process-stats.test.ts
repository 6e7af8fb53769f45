import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { cpuPerRequestByRole, cpuSeconds, THREAD_ROLES, threadCpuSeconds } from "../src/process-stats.js";

describe.skipIf(process.platform !== "linux")("CPU time per thread role, from /proc", () => {
  it("counts a thread named like the server's SQLite writer apart, and the roles add up to the process's CPU", async () => {
    // A real thread under the writer's name, spinning until it is terminated; read until it has been counted, however
    // busy the machine is.
    const busy = new Worker("for (;;);", { eval: true, name: "sqlite-writer-thread" });
    try {
      const deadline = Date.now() + 20_000;
      let before = cpuSeconds(process.pid);
      let byRole = threadCpuSeconds(process.pid);
      let after = cpuSeconds(process.pid);
      while (byRole["SQLite writer thread"] < 0.05 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        before = cpuSeconds(process.pid);
        byRole = threadCpuSeconds(process.pid);
        after = cpuSeconds(process.pid);
      }

      expect(byRole["SQLite writer thread"]).toBeGreaterThanOrEqual(0.05);
      expect(byRole["main thread"]).toBeGreaterThan(0);
      // The roles add up to the process's total as read between the two readings around them.
      const sum = THREAD_ROLES.reduce((all, role) => all + byRole[role], 0);
      expect(sum).toBeGreaterThanOrEqual(before - 1e-9);
      expect(sum).toBeLessThanOrEqual(after + 1e-9);
    } finally {
      await busy.terminate();
    }
  }, 30_000);

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
