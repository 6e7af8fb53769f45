import type { NewPlant } from "@plant-store/contract";
import type { Logger } from "../logger.js";
import type { CreateOutcome, PlantStore } from "./plant-store.js";
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
 * each instance one connection attempt and one warn line per 0.5-1 s.
 */
export const STORE_OPEN_RETRY: RetrySchedule = { initialMs: 100, factor: 2, maxMs: 1_000 };

/** How long one attempt may take before the wait is logged (once per attempt). */
const SLOW_ATTEMPT_MS = 2_000;

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
 * A PlantStore that opens the real one in the background, retrying transient failures with capped
 * exponential backoff and jitter, each failure logged once at warn with its reason. Until the store is open,
 * creates and pings reject with StoreUnavailableError: POST /plants answers 503 StoreUnavailable with
 * Retry-After and GET /readyz 503, as in an outage. A failure that is not transient (authentication
 * refused, a path that cannot be created) ends the wait: `failure` resolves with it, and nothing is retried.
 */
export class WaitingStore implements PlantStore {
  #store: PlantStore | undefined;
  #closed = false;
  #wake: (() => void) | undefined;
  #reportFailure!: (error: unknown) => void;
  #firstAttemptDone!: () => void;

  /** Resolves with the error that stopped the retries, if one does; never settles otherwise. */
  readonly failure = new Promise<unknown>((resolve) => {
    this.#reportFailure = resolve;
  });
  /** Resolves once the first attempt to open has succeeded or failed. */
  readonly firstAttempt = new Promise<void>((resolve) => {
    this.#firstAttemptDone = resolve;
  });

  constructor(private readonly options: WaitingStoreOptions) {
    void this.run();
  }

  /** The error that stopped the retries, once one has. */
  failedWith: unknown;

  /** Whether the real store is open (and migrated). */
  get isOpen(): boolean {
    return this.#store !== undefined;
  }

  create(plant: NewPlant): Promise<CreateOutcome> {
    return this.#store ? this.#store.create(plant) : Promise.reject(notOpenYet());
  }

  ping(): Promise<void> {
    return this.#store ? this.#store.ping() : Promise.reject(notOpenYet());
  }

  /** Stops retrying and closes the store if it is open. An attempt still in flight closes what it opens. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#wake?.();
    this.#firstAttemptDone();
    await this.#store?.close();
  }

  private async run(): Promise<void> {
    const { logger, schedule = STORE_OPEN_RETRY } = this.options;
    const startedAt = Date.now();
    for (let attempt = 1; !this.#closed; attempt++) {
      // An attempt that neither succeeds nor fails soon is waiting: on a migration lock another instance holds
      // (Kysely waits for it), or on a connection that gets no answer (up to PG_CONNECT_TIMEOUT_MS).
      let slow = false;
      const slowTimer = setTimeout(() => {
        slow = true;
        logger.info({ attempt, waitedMs: SLOW_ATTEMPT_MS }, "store still opening: waiting on the database or its migration lock");
      }, SLOW_ATTEMPT_MS);
      slowTimer.unref?.();
      try {
        const store = await this.options.open().finally(() => clearTimeout(slowTimer));
        if (this.#closed) {
          await store.close();
          return;
        }
        this.#store = store;
        this.#firstAttemptDone();
        if (attempt > 1 || slow) logger.info({ attempts: attempt, waitedMs: Date.now() - startedAt }, "store open: ready");
        return;
      } catch (error) {
        if (this.#closed) return;
        if (!this.options.isTransient(error)) {
          this.failedWith = error;
          this.#reportFailure(error);
          this.#firstAttemptDone();
          return;
        }
        this.#firstAttemptDone();
        const retryInMs = Math.round(retryDelayMs(attempt, schedule, this.options.random));
        logger.warn({ attempt, retryInMs, reason: reasonOf(error) }, "store unavailable at start; retrying");
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, retryInMs);
          this.#wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    }
  }
}

/** What creates and pings meet before the store opens; the retries log why, so readiness checks need not. */
export class StoreNotOpenError extends StoreUnavailableError {
  override name = "StoreNotOpenError";
}

function notOpenYet(): StoreNotOpenError {
  return new StoreNotOpenError("the store is not open yet");
}

/** One line on why an attempt failed: the innermost message (a pg AggregateError has none of its own) or its code. */
function reasonOf(error: unknown): string {
  let current: unknown = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  if (current instanceof AggregateError && current.errors[0] instanceof Error) current = current.errors[0];
  if (!(current instanceof Error)) return String(current);
  const code = (current as { code?: unknown }).code;
  return current.message || (typeof code === "string" ? code : current.name);
}
