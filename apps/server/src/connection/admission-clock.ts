import { monitorEventLoopDelay, performance } from "node:perf_hooks";

/** What admission control reads of time; tests inject their own. */
export interface AdmissionClock {
  /** Monotonic wall-clock milliseconds: what a client waits. */
  wallMs(): number;
  /**
   * The longest the event loop was late to a 10 ms timer since the last call, in milliseconds: how long a request
   * may have sat unread in its socket, time its caller counted and the server could not see.
   */
  loopDelayMs(): number;
}

let shared: AdmissionClock | undefined;

/**
 * The process's clock: performance.now() and node:perf_hooks' event-loop delay monitor (a 10 ms libuv timer), one
 * for the process however many servers it runs (tests start many), enabled on first use.
 */
export function processClock(): AdmissionClock {
  if (shared !== undefined) return shared;
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  shared = {
    wallMs: () => performance.now(),
    loopDelayMs() {
      const ms = delay.count === 0 ? 0 : delay.max / 1e6;
      delay.reset();
      return ms;
    },
  };
  return shared;
}
