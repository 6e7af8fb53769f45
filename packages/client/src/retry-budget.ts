// Finagle's RetryBudget is the model (gRPC's retry throttling and the SRE book's per-client budget keep a ratio too).
/** How many retries a client may send: a share of its recent calls, plus a floor so a quiet client can still retry. */
export interface RetryBudgetOptions {
  /** Retries allowed per call made in the last `windowMs`: 0.1 is one retry per ten calls. Default 0.1. */
  ratio?: number;
  /** Retries allowed per second of the window on top of `ratio`, for a client that makes few calls. Default 1. */
  minPerSecond?: number;
  /** How long a call or a retry counts, in milliseconds, from 1000 to 60000. Default 10000. */
  windowMs?: number;
}

const DEFAULTS = { ratio: 0.1, minPerSecond: 1, windowMs: 10_000 } as const;
// The window moves in tenths: a call or a retry stops counting 0.9 to 1 window after it happened.
const SLOTS = 10;

function checked(name: keyof RetryBudgetOptions, value: number, min: number, max = Number.MAX_VALUE): number {
  if (value >= min && value <= max) return value;
  const range = max === Number.MAX_VALUE ? `at least ${min}` : `from ${min} to ${max}`;
  throw new RangeError(`retryBudget.${name} must be ${range}, got ${value}`);
}

/**
 * One client's retry budget, shared by all its calls. Each call deposits `ratio` of a retry; a retry is sent
 * only while the retries of the last window stay within the deposits plus the floor. A client whose every
 * call fails (an overloaded server) then sends at most `1 + ratio` requests per call, not `1 + retries`.
 */
export class RetryBudget {
  readonly #ratio: number;
  readonly #floor: number;
  readonly #slotMs: number;
  readonly #calls = new Array<number>(SLOTS).fill(0);
  readonly #retries = new Array<number>(SLOTS).fill(0);
  #slot: number;

  /** Checks the options (a RangeError names a bad one) and starts with an empty window. */
  constructor(options: RetryBudgetOptions = {}) {
    this.#ratio = checked("ratio", options.ratio ?? DEFAULTS.ratio, 0);
    const windowMs = checked("windowMs", options.windowMs ?? DEFAULTS.windowMs, 1000, 60_000);
    this.#floor = (checked("minPerSecond", options.minPerSecond ?? DEFAULTS.minPerSecond, 0) * windowMs) / 1000;
    this.#slotMs = windowMs / SLOTS;
    this.#slot = Math.floor(performance.now() / this.#slotMs);
  }

  /** Counts a call (its first attempt). */
  recordCall(): void {
    this.#calls[this.#advance()]! += 1;
  }

  /** Takes one retry from the budget; false, and nothing taken, when the window has none left. */
  tryRetry(): boolean {
    const index = this.#advance();
    const sum = (counts: number[]) => counts.reduce((total, count) => total + count, 0);
    if (sum(this.#retries) + 1 > this.#floor + this.#ratio * sum(this.#calls)) return false;
    this.#retries[index]! += 1;
    return true;
  }

  // Empties the slots the clock has moved past and returns the current slot's index.
  #advance(): number {
    // performance.now: monotonic, so a wall-clock step neither empties nor freezes the window.
    const slot = Math.floor(performance.now() / this.#slotMs);
    for (let next = Math.max(this.#slot + 1, slot - SLOTS + 1); next <= slot; next++) {
      this.#calls[next % SLOTS] = 0;
      this.#retries[next % SLOTS] = 0;
    }
    this.#slot = Math.max(this.#slot, slot);
    return this.#slot % SLOTS;
  }
}
