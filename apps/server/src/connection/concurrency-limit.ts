/**
 * Never fewer in flight than this: above one commit batch at capacity (group commit writes what a turn dispatched,
 * so a lower limit would shrink batches and with them throughput) and above the closed loops of 50 and 100
 * connections the bench and the parity suite drive, which the limit must never hold back. Under overload at a fifth
 * of a core, where each answer takes longer, 128 held goodput to 0.6-0.7 of capacity; 256 does not
 * (docs/performance.md#overload).
 */
export const MIN_LIMIT = 256;
export const MAX_LIMIT = 2_000;
/** Samples are taken per window of answers. */
const WINDOW_MS = 100;
/** The baseline may rise this much per window (1% a second) when no window is as fast as it. */
const BASELINE_RISE = 1.001;
/** A window's latency up to 1.5x the baseline is tolerated; the limit moves a fifth of the way each window. */
const TOLERANCE = 1.5;
const SMOOTHING = 0.2;
const MIN_GRADIENT = 0.5;

/**
 * How many requests may be dispatched to Express and not yet answered, after Netflix's gradient limits and Envoy's
 * adaptive concurrency: each window, the ratio of the baseline latency (1.5x tolerated) to the window's scales the
 * limit down when latency rises, and a queue allowance of sqrt(limit) lets it grow while latency holds; an
 * app-limited window (fewer than half the limit in flight) changes nothing. The latency is from dispatch to answer:
 * the time the store's commits and the event loop's later turns add, which the queue's wait does not see.
 *
 * The baseline is the lowest window seen, let rise by 1% a second, not a long-term mean as in Gradient2: a mean
 * follows a latency that rises a little each window, so under overload the limit would grow with it to its ceiling,
 * moving the wait out of the queue (where CoDel sees and bounds it) into Express and the store (where nothing does).
 * Against the lowest window, the limit settles where latency is 1.5x that of a lightly loaded server, near its floor;
 * the slow rise lets the baseline follow a store that has become slower for good.
 */
export class ConcurrencyLimit {
  #limit = MIN_LIMIT;
  #baselineMs = Number.POSITIVE_INFINITY;
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
    this.#baselineMs = Math.min(shortMs, this.#baselineMs * BASELINE_RISE);
    if (appLimited) return;
    const gradient = Math.max(MIN_GRADIENT, Math.min(1, (TOLERANCE * this.#baselineMs) / shortMs));
    const next = this.#limit * gradient + Math.sqrt(this.#limit);
    this.#limit = Math.min(MAX_LIMIT, Math.max(MIN_LIMIT, this.#limit * (1 - SMOOTHING) + next * SMOOTHING));
  }
}
