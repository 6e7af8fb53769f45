/** Answers are summed up over windows of this much wall time; a window with none, or older than two, says nothing. */
const WINDOW_MS = 500;
/** At most this many answers are kept per window: the latest ones. */
const WINDOW_SAMPLES = 4_096;

/** What the last window of answers and event-loop turns showed. */
interface WindowSummary {
  /** The median time from dispatch to answer. */
  typicalMs: number;
  /** The 95th percentile of the same. */
  slowMs: number;
  /** The longest the event loop was late. */
  loopDelayMs: number;
}

const NOTHING: WindowSummary = { typicalMs: 0, slowMs: 0, loopDelayMs: 0 };

/**
 * How long the server has lately taken to answer, summed up every half second: the median and 95th percentile of
 * the time from dispatch to answer, and the longest the event loop was late (the time a request may have sat unread
 * before the server saw it). Admission control asks it whether a request can be answered before its deadline. Pure:
 * every time is the caller's, in wall-clock milliseconds, and the loop's delay comes from the function it is given.
 */
export class ServicePace {
  readonly #loopDelayMs: () => number;
  #windowStartMs: number | undefined;
  #samples: number[] = [];
  #count = 0;
  #last: WindowSummary = NOTHING;

  constructor(loopDelayMs: () => number) {
    this.#loopDelayMs = loopDelayMs;
  }

  /** A request answered at `nowMs`, `latencyMs` after its dispatch. */
  answered(latencyMs: number, nowMs: number): void {
    this.#roll(nowMs);
    if (this.#samples.length < WINDOW_SAMPLES) this.#samples.push(latencyMs);
    else this.#samples[this.#count % WINDOW_SAMPLES] = latencyMs;
    this.#count++;
  }

  /** The last window's summary; nothing when no request was answered in it. */
  recent(nowMs: number): WindowSummary {
    this.#roll(nowMs);
    return this.#last;
  }

  #roll(nowMs: number): void {
    if (this.#windowStartMs === undefined) this.#windowStartMs = nowMs;
    const elapsedMs = nowMs - this.#windowStartMs;
    if (elapsedMs < WINDOW_MS) return;
    const loopDelayMs = this.#loopDelayMs();
    if (elapsedMs >= 2 * WINDOW_MS || this.#samples.length === 0) this.#last = { ...NOTHING, loopDelayMs };
    else {
      const sorted = this.#samples.sort((a, b) => a - b);
      this.#last = {
        typicalMs: sorted[Math.floor(sorted.length / 2)]!,
        slowMs: sorted[Math.floor(sorted.length * 0.95)]!,
        loopDelayMs,
      };
    }
    this.#samples = [];
    this.#count = 0;
    this.#windowStartMs = nowMs;
  }
}
