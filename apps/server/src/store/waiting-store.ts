import type { NewPlant } from "@plant-store/contract";
import type { Logger } from "../logger.js";
import { oneLine } from "../one-line.js";
import type { CreateOutcome, PlantStore } from "./plant-store.js";
import { StoreInUseError } from "./store-in-use.js";
import { StoreUnavailableError } from "./store-unavailable.js";

/** Capped exponential backoff between attempts to open the store. */
export interface RetrySchedule {
  initialMs: number;
  factor: number;
  maxMs: number;
}

/**
 * 100 ms, doubling, capped at 1 s: a database that comes back is retried within 1 s, so the server is
 * ready about 1 s after it accepts connections (plus the connect and migration), while a long outage costs
 * each instance one connection attempt and one warn line per 0.5-1 s (a store another process holds: one line per
 * IN_USE_LOG_EVERY_MS).
 */
export const STORE_OPEN_RETRY: RetrySchedule = { initialMs: 100, factor: 2, maxMs: 1_000 };

/** How long one attempt may take before the wait is logged (once per attempt). */
const SLOW_ATTEMPT_MS = 2_000;

/**
 * How often a store another process holds is said again while the wait goes on. That wait is normal (the old server
 * of a rolling update draining) or lasts until someone acts (two servers on one file): the operator needs the line
 * once, and now and then, not once per attempt.
 */
export const IN_USE_LOG_EVERY_MS = 30_000;

/**
 * The wait before retry number `attempt` (1 after the first failure): the capped exponential step with
 * "equal jitter", between half of it and all of it, so instances that failed together do not retry together.
 * A formula this short needs no retry library; the loop around it also drives the store's readiness.
 */
export function retryDelayMs(attempt: number, schedule: RetrySchedule, random: () => number = Math.random): number {
  const step = Math.min(schedule.maxMs, schedule.initialMs * schedule.factor ** (attempt - 1));
  return step / 2 + (random() * step) / 2;
}

export interface WaitingStoreOptions {
  /** Opens (connects to and migrates) the store; rejects when it cannot. */
  open: () => Promise<PlantStore>;
  /** Whether a failure to open is worth retrying (the database is down or locked) rather than a configuration error. */
  isTransient: (error: unknown) => boolean;
  logger: Logger;
  schedule?: RetrySchedule;
  /** Jitter's source of randomness (tests make it fixed). */
  random?: () => number;
}

/**
 * Where the wait stands. `opening`: attempt number `attempt` is under way; `retrying`: it failed for a reason
 * that may pass, and the next starts in `retryInMs`; `open`: the store serves; `failed`: a failure no wait fixes
 * (authentication refused, a path that cannot be created), nothing more is tried; `closed`: close() was called.
 */
export type WaitingState =
  | { kind: "opening"; attempt: number }
  | { kind: "retrying"; attempt: number; reason: string; retryInMs: number }
  | { kind: "open"; attempts: number }
  | { kind: "failed"; error: unknown }
  | { kind: "closed" };

/**
 * A PlantStore that opens the real one in the background, retrying transient failures with capped
 * exponential backoff and jitter, each failure logged once at warn with its reason (a store another process holds:
 * once, then at most every IN_USE_LOG_EVERY_MS). Until the store is open,
 * creates and pings reject with StoreNotOpenError: POST /plants answers 503 StoreUnavailable with
 * Retry-After and GET /readyz 503, as in an outage, and neither logs a line of its own (the state's lines say it).
 * Its one state (`state`) changes only forward; `until()` waits for the state a caller needs.
 */
export class WaitingStore implements PlantStore {
  #state: WaitingState = { kind: "opening", attempt: 1 };
  #store: PlantStore | undefined;
  #wake: (() => void) | undefined;
  #inUseLoggedAt: number | undefined;
  #waiters: { accepts: (state: WaitingState) => boolean; resolve: (state: WaitingState) => void }[] = [];
  readonly #options: WaitingStoreOptions;

  constructor(options: WaitingStoreOptions) {
    this.#options = options;
    void this.#run();
  }

  get state(): WaitingState {
    return this.#state;
  }

  /** Resolves with the first state, the current one included, that `accepts` takes. */
  until(accepts: (state: WaitingState) => boolean): Promise<WaitingState> {
    if (accepts(this.#state)) return Promise.resolve(this.#state);
    return new Promise((resolve) => this.#waiters.push({ accepts, resolve }));
  }

  create(plant: NewPlant): Promise<CreateOutcome> {
    return this.#store ? this.#store.create(plant) : Promise.reject(notOpenYet());
  }

  ping(): Promise<void> {
    return this.#store ? this.#store.ping() : Promise.reject(notOpenYet());
  }

  /** Stops retrying and closes the store if it is open. An attempt still in flight closes what it opens. */
  async close(): Promise<void> {
    this.#enter({ kind: "closed" });
    this.#wake?.();
    await this.#store?.close();
  }

  get #closed(): boolean {
    return this.#state.kind === "closed";
  }

  #enter(state: WaitingState): void {
    if (this.#closed) return;
    this.#state = state;
    const waiting = this.#waiters;
    this.#waiters = waiting.filter((waiter) => !waiter.accepts(state));
    for (const waiter of waiting) if (waiter.accepts(state)) waiter.resolve(state);
  }

  async #run(): Promise<void> {
    const { schedule = STORE_OPEN_RETRY } = this.#options;
    const startedAt = Date.now();
    for (let attempt = 1; !this.#closed; attempt++) {
      this.#enter({ kind: "opening", attempt });
      const outcome = await this.#attempt(attempt);
      if (this.#closed) {
        if ("store" in outcome) await outcome.store.close();
        return;
      }
      if ("store" in outcome) {
        this.#store = outcome.store;
        this.#enter({ kind: "open", attempts: attempt });
        if (attempt > 1 || outcome.slow) {
          this.#options.logger.info({ attempts: attempt, waitedMs: Date.now() - startedAt }, "store open: ready");
        }
        return;
      }
      if (!this.#options.isTransient(outcome.error)) {
        this.#enter({ kind: "failed", error: outcome.error });
        return;
      }
      const retryInMs = Math.round(retryDelayMs(attempt, schedule, this.#options.random));
      // openStore's errors name DATABASE_URL where the setting is the likely cause (a host not found, say).
      const reason = oneLine(outcome.error);
      this.#enter({ kind: "retrying", attempt, reason, retryInMs });
      if (outcome.error instanceof StoreInUseError) this.#logInUse(outcome.error, attempt, startedAt);
      else this.#options.logger.warn({ attempt, retryInMs, reason }, "store unavailable at start; retrying");
      await this.#pause(retryInMs);
    }
  }

  /**
   * One attempt to open. One that neither succeeds nor fails soon is waiting: on a migration lock another instance
   * holds (Kysely waits for it), or on a connection that gets no answer (up to PG_CONNECT_TIMEOUT_MS); said once.
   */
  async #attempt(attempt: number): Promise<{ store: PlantStore; slow: boolean } | { error: unknown }> {
    let slow = false;
    const slowTimer = setTimeout(() => {
      slow = true;
      this.#options.logger.info(
        { attempt, waitedMs: SLOW_ATTEMPT_MS },
        "store still opening: waiting on the database or its migration lock",
      );
    }, SLOW_ATTEMPT_MS);
    slowTimer.unref?.();
    try {
      return { store: await this.#options.open(), slow };
    } catch (error) {
      return { error };
    } finally {
      clearTimeout(slowTimer);
    }
  }

  /** The first time another process is found holding the store, then at most every IN_USE_LOG_EVERY_MS. */
  #logInUse(error: StoreInUseError, attempt: number, startedAt: number): void {
    const now = Date.now();
    if (this.#inUseLoggedAt !== undefined && now - this.#inUseLoggedAt < IN_USE_LOG_EVERY_MS) return;
    this.#inUseLoggedAt = now;
    this.#options.logger.warn(
      { attempt, holderPid: error.holderPid, waitedMs: now - startedAt },
      `${error.message}; waiting for it to let go`,
    );
  }

  #pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/** What creates and pings meet before the store opens; the retries log why, so readiness checks need not. */
export class StoreNotOpenError extends StoreUnavailableError {
  override name = "StoreNotOpenError";
}

function notOpenYet(): StoreNotOpenError {
  return new StoreNotOpenError("the store is not open yet");
}
