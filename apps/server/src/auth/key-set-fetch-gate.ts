/** A fetch of the key set refused because the last minute's fetches have reached the limit. */
export class KeySetFetchLimitError extends Error {
  override name = "KeySetFetchLimitError";
  constructor(limitPerMinute: number) {
    super(`the key set was fetched ${limitPerMinute} times in the last minute`);
  }
}

const MINUTE_MS = 60_000;

/**
 * Lets at most one fetch of a JWKS run at a time and at most `limitPerMinute` start in any 60 s: a lookup that
 * arrives while a fetch runs shares its result, and one past the limit is refused at once, without a fetch.
 *
 * jwks-rsa's own limiter counts lookups rather than fetches, and counts them a tick late: a burst of lookups for
 * unknown kids all passed its per-minute check together, so 40 of them at once started more fetches than the limit.
 */
export class KeySetFetchGate<KeySet> {
  #inFlight: Promise<KeySet> | undefined;
  // When each of the last minute's fetches started, oldest first; never more than limitPerMinute of them.
  readonly #starts: number[] = [];
  readonly #limitPerMinute: number;
  readonly #now: () => number;

  constructor(limitPerMinute: number, now: () => number = Date.now) {
    this.#limitPerMinute = limitPerMinute;
    this.#now = now;
  }

  /** The running fetch's result, else a new fetch's, else a KeySetFetchLimitError (without calling `fetch`). */
  fetch(fetch: () => Promise<KeySet>): Promise<KeySet> {
    if (this.#inFlight !== undefined) return this.#inFlight;
    const now = this.#now();
    while (this.#starts.length > 0 && now - this.#starts[0]! >= MINUTE_MS) this.#starts.shift();
    if (this.#starts.length >= this.#limitPerMinute)
      return Promise.reject(new KeySetFetchLimitError(this.#limitPerMinute));
    this.#starts.push(now);
    const running = fetch().finally(() => {
      this.#inFlight = undefined;
    });
    this.#inFlight = running;
    return running;
  }
}
