// Google's SRE book, "Handling Overload", client-side throttling: each client keeps, per backend, the requests it
// attempted and the ones the backend accepted over the last two minutes, and refuses a request itself with
// probability max(0, (requests - K * accepts) / (requests + 1)). Locally refused requests count as requests, so the
// share sent falls as long as the server keeps refusing, and rises again as its accepts come back.

/** How the client holds back its own requests while the server refuses them; `throttle: false` turns it off. */
export interface AdaptiveThrottleOptions {
  /**
   * Requests sent per request the server accepts before the client refuses any itself: the client refuses with
   * probability `max(0, (requests - k * accepts) / (requests + 1))`. At least 1; default 2. A lower `k` holds back
   * sooner and sends the server fewer requests it would refuse; a higher one finds a recovered server sooner.
   */
  k?: number;
  /**
   * Requests the window must hold before the client refuses any: below it, everything is sent. Default 10, so a
   * client that calls rarely is not held back by one refused call (a restart's 503 ShuttingDown, say); so few
   * requests cannot overload a server. 0 for the SRE book's formula alone.
   */
  minRequests?: number;
  /** How long a request or an accept counts, in milliseconds, from 1000 to 3600000. Default 120000 (two minutes). */
  windowMs?: number;
  /** The step the window moves in, in milliseconds: from 1 to `windowMs`, at most 10000 steps. Default 1000. */
  bucketMs?: number;
  /** The clock: monotonic milliseconds. Default `performance.now`. */
  now?: () => number;
  /** The random source: a number from 0 up to, not including, 1. Default `Math.random`. */
  random?: () => number;
}

/** What an {@link AdaptiveThrottle} saw of one origin over its window, and what it refused. */
export interface AdaptiveThrottleStats {
  /** Requests attempted in the window: first attempts and retries, those refused locally included. */
  requests: number;
  /** Answers in the window that were not a refusal (any status but 429 and 503). */
  accepts: number;
  /**
   * The probability that the next request is refused locally: `max(0, (requests - k * accepts) / (requests + 1))`,
   * or 0 while `requests` is under `minRequests`.
   */
  refusalProbability: number;
  /** Requests refused locally since the throttle was created; it only grows. */
  refusedLocally: number;
}

const DEFAULTS = { k: 2, minRequests: 10, windowMs: 120_000, bucketMs: 1_000 } as const;
const MAX_BUCKETS = 10_000;

function checked(name: string, value: number, min: number, max: number): number {
  if (value >= min && value <= max) return value;
  const range = max === Number.POSITIVE_INFINITY ? `at least ${min}` : `from ${min} to ${max}`;
  throw new RangeError(`throttle.${name} must be ${range}, got ${value}`);
}

type WindowSettings = Required<AdaptiveThrottleOptions>;

/** One origin's sliding window of requests and accepts. */
export class OriginWindow {
  readonly #k: number;
  readonly #minRequests: number;
  readonly #bucketMs: number;
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #requests: number[];
  readonly #accepts: number[];
  #slot: number;
  #requestTotal = 0;
  #acceptTotal = 0;
  #refused = 0;

  constructor(settings: WindowSettings) {
    const { k, minRequests, windowMs, bucketMs, now, random } = settings;
    this.#k = k;
    this.#minRequests = minRequests;
    this.#bucketMs = bucketMs;
    this.#now = now;
    this.#random = random;
    const buckets = Math.ceil(windowMs / bucketMs);
    this.#requests = new Array<number>(buckets).fill(0);
    this.#accepts = new Array<number>(buckets).fill(0);
    this.#slot = Math.floor(now() / bucketMs);
  }

  /**
   * Decides whether a request may be sent: undefined when it may (it counts once it has its outcome, see
   * {@link OriginWindow.recordOutcome}), the refusal probability it met when the throttle refuses it (it counts
   * as a request at once).
   */
  refuses(): number | undefined {
    const index = this.#advance();
    const probability = this.#probability();
    if (probability === 0 || this.#random() >= probability) return undefined;
    this.#requests[index]! += 1;
    this.#requestTotal += 1;
    this.#refused += 1;
    return probability;
  }

  /**
   * Counts a sent request once it has its outcome: accepted when the server answered anything but a 429 or 503.
   * Counting requests still in flight would read a burst of concurrent first calls as refusals.
   */
  recordOutcome(accepted: boolean): void {
    const index = this.#advance();
    this.#requests[index]! += 1;
    this.#requestTotal += 1;
    if (!accepted) return;
    this.#accepts[index]! += 1;
    this.#acceptTotal += 1;
  }

  /** The window's counts and the current refusal probability. */
  stats(): AdaptiveThrottleStats {
    this.#advance();
    return {
      requests: this.#requestTotal,
      accepts: this.#acceptTotal,
      refusalProbability: this.#probability(),
      refusedLocally: this.#refused,
    };
  }

  #probability(): number {
    if (this.#requestTotal < this.#minRequests) return 0;
    return Math.max(0, (this.#requestTotal - this.#k * this.#acceptTotal) / (this.#requestTotal + 1));
  }

  // Empties the buckets the clock has moved past and returns the current bucket's index.
  #advance(): number {
    const buckets = this.#requests.length;
    const slot = Math.floor(this.#now() / this.#bucketMs);
    for (let next = Math.max(this.#slot + 1, slot - buckets + 1); next <= slot; next++) {
      const index = next % buckets;
      this.#requestTotal -= this.#requests[index]!;
      this.#acceptTotal -= this.#accepts[index]!;
      this.#requests[index] = 0;
      this.#accepts[index] = 0;
    }
    this.#slot = Math.max(this.#slot, slot);
    return this.#slot % buckets;
  }
}

const internals = new WeakMap<AdaptiveThrottle, { windows: Map<string, OriginWindow>; settings: WindowSettings }>();

/** The origin of a base URL (`https://plants.example.com/api` -> `https://plants.example.com`); a relative one is its own key. */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/**
 * Client-side adaptive throttling, as Google's SRE book describes it, kept per origin. Every client has one of
 * its own unless given one: pass the same `AdaptiveThrottle` as `throttle` to several clients and they share
 * one history per origin, as one client would; read what it saw with {@link AdaptiveThrottle.stats}.
 */
export class AdaptiveThrottle {
  /** Checks the options (a RangeError names a bad one); every origin starts with an empty window. */
  constructor(options: AdaptiveThrottleOptions = {}) {
    const k = checked("k", options.k ?? DEFAULTS.k, 1, Number.POSITIVE_INFINITY);
    const minRequests = checked(
      "minRequests",
      options.minRequests ?? DEFAULTS.minRequests,
      0,
      Number.POSITIVE_INFINITY,
    );
    const windowMs = checked("windowMs", options.windowMs ?? DEFAULTS.windowMs, 1_000, 3_600_000);
    const bucketMs = checked(
      "bucketMs",
      options.bucketMs ?? DEFAULTS.bucketMs,
      Math.max(1, windowMs / MAX_BUCKETS),
      windowMs,
    );
    const now = options.now ?? (() => performance.now());
    const random = options.random ?? Math.random;
    internals.set(this, { windows: new Map(), settings: { k, minRequests, windowMs, bucketMs, now, random } });
  }

  /** What the throttle saw of `origin` (an origin or any URL on it) over its window; zeros for an origin it has not seen. */
  stats(origin: string): AdaptiveThrottleStats {
    return (
      internals.get(this)!.windows.get(originOf(origin))?.stats() ?? {
        requests: 0,
        accepts: 0,
        refusalProbability: 0,
        refusedLocally: 0,
      }
    );
  }
}

/** The throttle's window for `origin`, made on first use. */
export function originWindow(throttle: AdaptiveThrottle, origin: string): OriginWindow {
  const { windows, settings } = internals.get(throttle)!;
  let window = windows.get(origin);
  if (window === undefined) {
    window = new OriginWindow(settings);
    windows.set(origin, window);
  }
  return window;
}
