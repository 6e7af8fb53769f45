/**
 * Never fewer in flight than this: above one commit batch at capacity (group commit writes what a turn dispatched,
 * so a lower limit would shrink batches and with them throughput) and above the closed loops of 50 and 100
 * connections the bench and the parity suite drive, which the limit must never hold back.
 */
export const MIN_LIMIT = 128;
export const MAX_LIMIT = 2_000;
/** Samples are taken per window of answers; the long-term latency averages this many windows (about 6 s). */
const WINDOW_MS = 100;
const LONG_WINDOWS = 60;
/** Gradient2's constants (Netflix concurrency-limits): a latency 1.5x the long-term one is tolerated; 0.2 smoothing. */
const TOLERANCE = 1.5;
const SMOOTHING = 0.2;
const MIN_GRADIENT = 0.5;

/**
 * How many requests may be dispatched to Express and not yet answered, after Netflix's Gradient2: each window, the
 * ratio of the long-term mean latency to the window's (with 1.5x tolerated) scales the limit down when latency rises,
 * and a queue allowance of sqrt(limit) lets it grow while latency holds; an app-limited window (fewer than half the
 * limit in flight) changes nothing. The latency is from dispatch to answer: the time the store's commits and the
 * event loop's later turns add, which the queue's wait does not see.
 */
export class ConcurrencyLimit {
  #limit = MIN_LIMIT;
  #longMs = 0;
  #windowStartMs: number | undefined;
  #windowSumMs = 0;
  #windowCount = 0;
  #windowMaxInFlight = 0;

  get limit(): number {
    return Math.floor(this.#limit);
  }

  /** One answered request: its time from dispatch to answer, and how many were in flight when it was dispatched. */
  sample(latencyMs: number, inFlight: number, nowMs: number): void {
    this.#windowStartMs ??= nowMs;
    this.#windowSumMs += latencyMs;
    this.#windowCount++;
    if (inFlight > this.#windowMaxInFlight) this.#windowMaxInFlight = inFlight;
    if (nowMs - this.#windowStartMs >= WINDOW_MS) this.#closeWindow(nowMs);
  }

  #closeWindow(nowMs: number): void {
    const shortMs = this.#windowSumMs / this.#windowCount;
    const appLimited = this.#windowMaxInFlight < this.#limit / 2;
    this.#windowStartMs = nowMs;
    this.#windowSumMs = 0;
    this.#windowCount = 0;
    this.#windowMaxInFlight = 0;
    this.#longMs = this.#longMs === 0 ? shortMs : this.#longMs + (shortMs - this.#longMs) / LONG_WINDOWS;
    // After a long overload the long-term latency is stale: let it fall quickly once latency is far below it.
    if (this.#longMs / shortMs > 2) this.#longMs *= 0.95;
    if (appLimited) return;
    const gradient = Math.max(MIN_GRADIENT, Math.min(1, (TOLERANCE * this.#longMs) / shortMs));
    const next = this.#limit * gradient + Math.sqrt(this.#limit);
    this.#limit = Math.min(MAX_LIMIT, Math.max(MIN_LIMIT, this.#limit * (1 - SMOOTHING) + next * SMOOTHING));
  }
}
