import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { cpuPerRequest, cpuSeconds, readCpu, THREAD_ROLES } from "../src/process-stats.js";

describe.skipIf(process.platform !== "linux")("CPU time per thread role, from /proc", () => {
  it("counts a thread named like the server's SQLite writer apart, and the roles add up to the process's CPU", async () => {
    // A real thread under the writer's name, spinning until it is terminated; read until it has been counted, however
    // busy the machine is.
    const busy = new Worker("for (;;);", { eval: true, name: "sqlite-writer-thread" });
    try {
      const deadline = Date.now() + 20_000;
      let before = cpuSeconds(process.pid);
      let { total, byRole } = readCpu(process.pid);
      let after = cpuSeconds(process.pid);
      while (byRole["SQLite writer thread"] < 0.05 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        before = cpuSeconds(process.pid);
        ({ total, byRole } = readCpu(process.pid));
        after = cpuSeconds(process.pid);
      }

      expect(byRole["SQLite writer thread"]).toBeGreaterThanOrEqual(0.05);
      expect(byRole["main thread"]).toBeGreaterThan(0);
      // The total is the process's as read between the two readings around it, and the roles add up to it.
      expect(total).toBeGreaterThanOrEqual(before);
      expect(total).toBeLessThanOrEqual(after);
      expect(THREAD_ROLES.reduce((all, role) => all + byRole[role], 0)).toBeCloseTo(total, 9);
    } finally {
      await busy.terminate();
    }
  }, 30_000);

  it("divides the CPU between two readings by the requests: the whole from the totals, a role's tick read into the wrong role clamped at zero", () => {
    const before = {
      total: 1.17,
      byRole: {
        "main thread": 1,
        "SQLite writer thread": 0.1,
        "V8 helper threads (GC, compiler)": 0.05,
        "other threads": 0.02,
      },
    };
    const after = {
      total: 1.72,
      byRole: {
        "main thread": 1.5,
        "SQLite writer thread": 0.15,
        "V8 helper threads (GC, compiler)": 0.06,
        "other threads": 0.01,
      },
    };
    expect(cpuPerRequest(before, after, 10_000)).toEqual({
      all: expect.closeTo(55, 9),
      byRole: {
        "main thread": expect.closeTo(50, 9),
        "SQLite writer thread": expect.closeTo(5, 9),
        "V8 helper threads (GC, compiler)": expect.closeTo(1, 9),
        "other threads": 0,
      },
    });
  });
});
