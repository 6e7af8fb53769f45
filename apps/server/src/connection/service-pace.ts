/** Dispatches are counted over windows of at least this much wall time. */
const WINDOW_MS = 50;
/** Each window moves the dispatch rate this much of the way: about the last twenty count. */
const SMOOTHING = 0.1;
/**
 * The time from dispatch to answer is the longest of the last SERVICE_SAMPLES answers, not their mean: a request
 * dispatched with less time left than that may be answered after its caller gave up, and a late 2xx is work wasted
 * twice (the caller retries it).
 */
const SERVICE_SAMPLES = 128;

/**
 * How fast the server gets through its queue now, from what it did recently: how many requests it dispatches a
 * millisecond, and how long one takes from dispatch to answer. Admission control asks it whether a request can
 * still be served before its deadline. Pure: every time is the caller's, in wall-clock milliseconds.
 */
export class ServicePace {
  #perMs = 0;
  #samples = new Float64Array(SERVICE_SAMPLES);
  #next = 0;
  #serviceMs = 0;
  #windowStartMs: number | undefined;
  #windowCount = 0;

  /**
   * `count` requests dispatched at `nowMs`; `busy`: some were left waiting. Only busy windows count: a server that
   * empties its queue shows how much it was offered, not how fast it can go.
   */
  dispatched(count: number, nowMs: number, busy: boolean): void {
    if (!busy) {
      this.#windowStartMs = undefined;
      this.#windowCount = 0;
      return;
    }
    this.#windowStartMs ??= nowMs;
    this.#windowCount += count;
    const elapsedMs = nowMs - this.#windowStartMs;
    if (elapsedMs < WINDOW_MS) return;
    const perMs = this.#windowCount / elapsedMs;
    this.#perMs = this.#perMs === 0 ? perMs : this.#perMs + SMOOTHING * (perMs - this.#perMs);
    this.#windowStartMs = nowMs;
    this.#windowCount = 0;
  }

  /** A request answered `latencyMs` after its dispatch. */
  answered(latencyMs: number): void {
    const evicted = this.#samples[this.#next]!;
    this.#samples[this.#next] = latencyMs;
    this.#next = (this.#next + 1) % SERVICE_SAMPLES;
    if (latencyMs >= this.#serviceMs) this.#serviceMs = latencyMs;
    // The longest left the window: the next longest is found again, once per such eviction.
    else if (evicted === this.#serviceMs) this.#serviceMs = Math.max(...this.#samples);
  }

  /** How long after dispatch an answer comes, at most, of the last answers; 0 before the first answer. */
  get serviceMs(): number {
    return this.#serviceMs;
  }

  /** How long a request arriving behind `queued` others waits for its dispatch; 0 before the first busy window. */
  waitMs(queued: number): number {
    return this.#perMs === 0 ? 0 : queued / this.#perMs;
  }
}
