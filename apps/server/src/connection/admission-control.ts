import type { QueueTimeSample } from "./queue-time.js";

/** The controller's constants: properties of the method, the same for every pod (nothing here is tuned per size). */
const INTERVAL_MS = 100;
/** An interval with the loop busy this share of the time had a standing queue (CoDel: the queue never emptied). */
const STANDING_QUEUE_BUSY_SHARE = 0.98;
/** Below this busy share the queue has drained: overload ends (the gap to the line above is hysteresis). */
const DRAINED_BUSY_SHARE = 0.9;
/** The limit is this multiple of the longest wait seen in intervals without a standing queue... */
const LIMIT_OVER_NORMAL_WAIT = 2;
/** ...followed at this rate per interval (about 2 s to settle), so one GC pause moves it little. */
const LIMIT_SMOOTHING = 0.05;
/** Bounds of the limit: a wait below 5 ms is never overload; one over 250 ms is never "in time". */
const MIN_LIMIT_MS = 5;
const MAX_LIMIT_MS = 250;
const INITIAL_LIMIT_MS = 50;

/** What the controller reports about one interval once it has closed it (for metrics and the log). */
export interface IntervalSummary {
  overloaded: boolean;
  limitMs: number;
}

/**
 * Admission by queueing delay, with a limit that follows the machine. Each 100 ms interval, the loop's busy share
 * says whether a standing queue formed (CoDel's test: it never emptied); while one stands, a request that waited
 * longer than the limit is refused before any work is done for it, so the CPU goes to requests still in time.
 * Outside overload nothing is refused, and the limit follows twice the longest wait of each interval (as Envoy's
 * gradient controller follows its minRTT): a pod with a small CPU share, whose turns stretch across its CPU
 * quota's throttles, gets a longer limit than a large one, with nothing to configure.
 */
export class AdmissionControl {
  #limitMs = INITIAL_LIMIT_MS;
  #overloaded = false;
  #intervalStartMs: number | undefined;
  #intervalStartIdleMs = 0;
  #intervalLongestWaitMs = 0;

  /** The current limit on a request's queueing delay, in milliseconds. */
  get limitMs(): number {
    return this.#limitMs;
  }

  /** Whether the last interval had a standing queue (requests over the limit are refused while it does). */
  get overloaded(): boolean {
    return this.#overloaded;
  }

  /**
   * Whether to serve a request that arrived with this sample; `onInterval` is called when the sample closes an
   * interval (at most once per 100 ms).
   */
  admit(sample: QueueTimeSample, onInterval?: (summary: IntervalSummary) => void): boolean {
    if (this.#intervalStartMs === undefined) this.#startInterval(sample);
    else if (sample.nowMs - this.#intervalStartMs >= INTERVAL_MS) {
      this.#closeInterval(sample);
      onInterval?.({ overloaded: this.#overloaded, limitMs: this.#limitMs });
    }
    if (sample.queueMs > this.#intervalLongestWaitMs) this.#intervalLongestWaitMs = sample.queueMs;
    return !this.#overloaded || sample.queueMs <= this.#limitMs;
  }

  #startInterval(sample: QueueTimeSample): void {
    this.#intervalStartMs = sample.nowMs;
    this.#intervalStartIdleMs = sample.idleMs;
    this.#intervalLongestWaitMs = 0;
  }

  #closeInterval(sample: QueueTimeSample): void {
    const elapsedMs = sample.nowMs - (this.#intervalStartMs ?? sample.nowMs);
    const busyShare = 1 - (sample.idleMs - this.#intervalStartIdleMs) / elapsedMs;
    // The interval may have been long without requests; only a busy loop throughout is a standing queue.
    if (busyShare >= STANDING_QUEUE_BUSY_SHARE && elapsedMs < 2 * INTERVAL_MS) this.#overloaded = true;
    else if (busyShare < DRAINED_BUSY_SHARE || elapsedMs >= 2 * INTERVAL_MS) this.#overloaded = false;
    if (!this.#overloaded) {
      const target = LIMIT_OVER_NORMAL_WAIT * this.#intervalLongestWaitMs;
      const next = this.#limitMs + LIMIT_SMOOTHING * (target - this.#limitMs);
      this.#limitMs = Math.min(MAX_LIMIT_MS, Math.max(MIN_LIMIT_MS, next));
    }
    this.#startInterval(sample);
  }
}
