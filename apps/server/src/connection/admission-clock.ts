import { performance } from "node:perf_hooks";

/** The two clocks admission control reads; tests inject their own. */
export interface AdmissionClock {
  /** Monotonic wall-clock milliseconds: what a client waits. */
  wallMs(): number;
  /**
   * Milliseconds of CPU the event loop's thread has used: how much of its own work a request waited behind. A
   * CPU quota's throttles and other processes on the host stretch wall time but not this one, so a wait measured in
   * it is the server's own queue and nothing else, and a limit in it scales with the process's CPU share by itself
   * (5 ms of CPU is 25 ms of wall time at a fifth of a core).
   */
  cpuMs(): number;
}

/** A CPU reading (getrusage for the thread, about 2 us) is reused while less than this much wall time has passed. */
const CPU_READ_EVERY_MS = 0.25;

/** The process's clocks: performance.now() and the main thread's CPU time, read at most every 0.25 ms. */
export function processClock(): AdmissionClock {
  let lastReadWallMs = Number.NEGATIVE_INFINITY;
  let lastCpuMs = 0;
  return {
    wallMs: () => performance.now(),
    cpuMs() {
      const now = performance.now();
      if (now - lastReadWallMs >= CPU_READ_EVERY_MS) {
        const { user, system } = process.threadCpuUsage();
        lastCpuMs = (user + system) / 1000;
        lastReadWallMs = now;
      }
      return lastCpuMs;
    },
  };
}
