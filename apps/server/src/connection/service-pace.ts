/** Dispatches are counted over windows of at least this much wall time. */
const WINDOW_MS = 50;
/** Each window moves the dispatch rate this much of the way: about the last twenty count. */
const SMOOTHING = 0.1;
/** How far back the longest answer and the longest turn are remembered: between one and two of these. */
const RECENT_MS = 500;

/** The largest value recorded in the last RECENT_MS to 2 x RECENT_MS of wall time (two windows, no list). */
class RecentMax {
  #windowStartMs = Number.NEGATIVE_INFINITY;
  #current = 0;
  #previous = 0;

  record(value: number, nowMs: number): void {
    this.#roll(nowMs);
    if (value > this.#current) this.#current = value;
  }

  value(nowMs: number): number {
    this.#roll(nowMs);
    return Math.max(this.#current, this.#previous);
  }

  #roll(nowMs: number): void {
    const elapsedMs = nowMs - this.#windowStartMs;
    if (elapsedMs < RECENT_MS) return;
    this.#previous = elapsedMs < 2 * RECENT_MS ? this.#current : 0;
    this.#current = 0;
    this.#windowStartMs = nowMs;
  }
}

/**
 * How fast the server gets through its queue now, from what it did in the last second or so: how many requests it
 * dispatches a millisecond, the longest a request took from dispatch to answer, and the longest event-loop turn
 * while requests waited. Admission control asks it whether a request can still be answered before its deadline.
 * Longest, not mean: a request dispatched with less time left than the slowest recent answer may be answered after
 * its caller gave up, and a late 2xx is work wasted twice (the caller retries it). Pure: every time is the caller's,
 * in wall-clock milliseconds.
 */
export class ServicePace {
  #perMs = 0;
  #windowStartMs: number | undefined;
  #windowCount = 0;
  #service = new RecentMax();
  #turn = new RecentMax();
  #lastTurnMs: number | undefined;

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

  /**
   * The dispatcher's turn starts at `nowMs`; `followsBusyTurn`: the last one left requests waiting, so this one came
   * a whole event-loop turn later.
   */
  turnStarted(nowMs: number, followsBusyTurn: boolean): void {
    if (followsBusyTurn && this.#lastTurnMs !== undefined) this.#turn.record(nowMs - this.#lastTurnMs, nowMs);
    this.#lastTurnMs = nowMs;
  }

  /** A request answered at `nowMs`, `latencyMs` after its dispatch. */
  answered(latencyMs: number, nowMs: number): void {
    this.#service.record(latencyMs, nowMs);
  }

  /** The longest a request took from dispatch to answer lately; 0 when none was answered lately. */
  serviceMs(nowMs: number): number {
    return this.#service.value(nowMs);
  }

  /**
   * The longest event-loop turn lately while requests waited: how long a request may have been in its socket,
   * unread, before the server saw it (time its caller counted and the server cannot). 0 on a server that keeps up.
   */
  unseenMs(nowMs: number): number {
    return this.#turn.value(nowMs);
  }

  /** How long a request arriving behind `queued` others waits for its dispatch; 0 before the first busy window. */
  waitMs(queued: number): number {
    return this.#perMs === 0 ? 0 : queued / this.#perMs;
  }
}
