import type { QueueTimeSample } from "./queue-time.js";

// The controller's constants are properties of the method, the same for every pod; nothing here is tuned per size.
const INTERVAL_MS = 100;
/** How hard the refusal share reacts, per interval, to the mean wait over the limit and to its change (in limits). */
const GAIN = 0.05;
const TREND_GAIN = 0.2;
/** Some requests are always served, so the limit goes on being measured. */
const MAX_REFUSAL_SHARE = 0.98;
/** Without refusals, the limit follows twice each interval's mean latency, at this rate (about 2 s to settle). */
const LIMIT_OVER_NORMAL_LATENCY = 2;
const LIMIT_SMOOTHING = 0.05;
/**
 * Bounds of the limit: a mean wait under 50 ms is within any client's budget (a closed-loop fleet saturating a
 * small pod waits about that and needs no refusals); one over 250 ms is never "in time". It starts at the top, so a
 * cold start (JIT, first GCs) refuses nothing before the machine's normal waits are known.
 */
const MIN_LIMIT_MS = 50;
const MAX_LIMIT_MS = 250;
const INITIAL_LIMIT_MS = MAX_LIMIT_MS;
/**
 * The guard against refusing more than the excess: an interval whose mean latency is at least this share of the
 * limit had a busy server, so its rate of answers is what the server can serve now. The best such rate, decaying
 * by this factor per interval (about a second to follow a slower server), bounds the refusal share at the
 * arrivals over it, plus a margin that drains a standing queue. A rate is taken from at least 5 answers.
 */
const BUSY_SHARE_OF_LIMIT = 0.5;
const MIN_ANSWERS_FOR_RATE = 5;
const SERVED_RATE_DECAY = 0.9;
const EXCESS_MARGIN = 0.05;

/**
 * Admission by latency. Each 100 ms, the interval's mean latency (the larger of the mean wait for the event loop
 * of the requests that arrived and the mean time from arrival to answer of those answered: under a CPU limit the
 * queue can stand in the store's commits as well as before the loop) is compared with the limit, and the share of
 * requests refused moves in proportion to the excess and to its trend (PIE's controller, RFC 8033, with delays in
 * units of the limit): a latency that stays over the limit refuses more until it is back under it; one under it
 * refuses less, down to none. Refusing exactly the excess matters because a refusal is not free (it
 * still costs Node's HTTP parse, a third to a half of a served request): refusing every late request turns a small
 * overload into a server busy refusing.
 *
 * The share never exceeds the excess: it is capped at 1 - served / arrivals (plus a small margin), where served is
 * the best recent rate of answers while the server was busy. Without that cap a latency that refusing cannot
 * lower (the wait is in the CPU quota's throttles, or refusals themselves fill the quota) drives the share up to
 * where the server refuses more than it serves.
 *
 * The limit follows the machine (as Netflix's Gradient2 compares with its long-term RTT): while nothing is refused,
 * it tracks twice the mean latency of each interval, so a pod with a small CPU share, whose event-loop turns stretch
 * across its quota's throttles, gets a longer limit than a large one, with nothing to configure.
 */
export class AdmissionControl {
  #limitMs = INITIAL_LIMIT_MS;
  #refusalShare = 0;
  #previousMeanMs = 0;
  // Refusals are spread evenly: each request adds the share, and one is refused each time a whole one accrues.
  #accrued = 0.5;
  #intervalStartMs: number | undefined;
  #intervalCount = 0;
  #intervalSumMs = 0;
  #answeredCount = 0;
  #answeredSumMs = 0;
  /** Answers per millisecond the server managed while busy (the best recent interval's); 0 until one was busy. */
  #servedPerMs = 0;

  /** The current limit on the mean latency, in milliseconds. */
  get limitMs(): number {
    return this.#limitMs;
  }

  /** The share of requests currently refused (0 outside overload). */
  get refusalShare(): number {
    return this.#refusalShare;
  }

  /** Whether to serve a request that arrived with this sample; `onInterval` is called each time an interval closes. */
  admit(sample: QueueTimeSample, onInterval?: (control: AdmissionControl) => void): boolean {
    if (this.#intervalStartMs === undefined) this.#intervalStartMs = sample.nowMs;
    else if (sample.nowMs - this.#intervalStartMs >= INTERVAL_MS) {
      this.#closeInterval(sample.nowMs);
      onInterval?.(this);
    }
    this.#intervalCount++;
    this.#intervalSumMs += sample.queueMs;
    if (this.#refusalShare === 0) return true;
    this.#accrued += this.#refusalShare;
    if (this.#accrued < 1) return true;
    this.#accrued -= 1;
    return false;
  }

  /** Records an admitted request's latency, from its arrival (its sample's time less its wait) to its answer. */
  answered(latencyMs: number): void {
    this.#answeredCount++;
    this.#answeredSumMs += latencyMs;
  }

  #closeInterval(nowMs: number): void {
    // An interval that lasted much longer had no requests for a while: no queue stood over it.
    const quiet = nowMs - (this.#intervalStartMs ?? nowMs) >= 2 * INTERVAL_MS;
    const meanWaitMs = this.#intervalSumMs / this.#intervalCount;
    const meanAnsweredMs = this.#answeredCount > 0 ? this.#answeredSumMs / this.#answeredCount : 0;
    const meanMs = quiet ? 0 : Math.max(meanWaitMs, meanAnsweredMs);
    const excess = (meanMs - this.#limitMs) / this.#limitMs;
    // The trend counts only over the limit: a wait rising from idle to normal refuses nothing.
    const trend = meanMs > this.#limitMs ? (meanMs - this.#previousMeanMs) / this.#limitMs : 0;
    const share = this.#refusalShare + GAIN * excess + TREND_GAIN * trend;
    this.#refusalShare = Math.min(MAX_REFUSAL_SHARE, this.#excessShare(nowMs, meanMs), Math.max(0, share));
    this.#previousMeanMs = meanMs;
    if (this.#refusalShare === 0) {
      const next = this.#limitMs + LIMIT_SMOOTHING * (LIMIT_OVER_NORMAL_LATENCY * meanMs - this.#limitMs);
      this.#limitMs = Math.min(MAX_LIMIT_MS, Math.max(MIN_LIMIT_MS, next));
    }
    this.#intervalStartMs = nowMs;
    this.#intervalCount = 0;
    this.#intervalSumMs = 0;
    this.#answeredCount = 0;
    this.#answeredSumMs = 0;
  }

  /** The largest share worth refusing: the arrivals over what the server answers while busy, plus the margin. */
  #excessShare(nowMs: number, meanMs: number): number {
    const elapsedMs = nowMs - (this.#intervalStartMs ?? nowMs);
    if (elapsedMs <= 0 || this.#intervalCount === 0) return MAX_REFUSAL_SHARE;
    if (meanMs >= BUSY_SHARE_OF_LIMIT * this.#limitMs && this.#answeredCount >= MIN_ANSWERS_FOR_RATE) {
      this.#servedPerMs = Math.max(this.#answeredCount / elapsedMs, SERVED_RATE_DECAY * this.#servedPerMs);
    }
    if (this.#servedPerMs === 0) return MAX_REFUSAL_SHARE;
    const arrivalsPerMs = this.#intervalCount / elapsedMs;
    return Math.max(0, 1 - this.#servedPerMs / arrivalsPerMs) + EXCESS_MARGIN;
  }
}
