import { performance } from "node:perf_hooks";

/** What admission control reads when a request arrives: the clock and the request's wait. */
export interface QueueTimeSample {
  /** Monotonic milliseconds. */
  nowMs: number;
  /** How long, at most, this request waited for the event loop before its handler ran. */
  queueMs: number;
}

/** Where admission control gets its samples; tests inject their own clock. */
export interface QueueTimeSource {
  sample(): QueueTimeSample;
  /** The same clock as the samples' `nowMs`. */
  nowMs(): number;
}

/**
 * A request's queueing delay, estimated from the event loop's busy time. Node reads a request's bytes only when
 * the loop polls for I/O, so a request that arrived while the loop was busy waited in its socket until the next
 * poll: at most the busy time since the previous turn's check phase (a setImmediate marks it), plus the turn before
 * it when the loop has not been idle since. Under a CPU limit the time the process is throttled is busy time too,
 * which is what a client waits for. Costs a clock read per request and one setImmediate per turn with requests.
 */
export function eventLoopQueueTime(): QueueTimeSource {
  const timing = performance.nodeTiming;
  let markPending = false;
  let markMs = performance.now();
  let markIdleMs = timing.idleTime;
  let idleMs = markIdleMs;
  let previousTurnBusyMs = 0;

  const mark = () => {
    const now = performance.now();
    const idle = timing.idleTime;
    previousTurnBusyMs = now - markMs - (idle - markIdleMs);
    markMs = now;
    markIdleMs = idle;
    markPending = false;
  };

  return {
    nowMs: () => performance.now(),
    sample() {
      const nowMs = performance.now();
      // The idle time changes only when the loop polls, so one read per turn serves all of its requests.
      if (!markPending) {
        markPending = true;
        idleMs = timing.idleTime;
        setImmediate(mark);
      }
      const idledSinceMark = idleMs - markIdleMs;
      const busySinceMark = nowMs - markMs - idledSinceMark;
      return { nowMs, queueMs: idledSinceMark > 0 ? busySinceMark : previousTurnBusyMs + busySinceMark };
    },
  };
}
