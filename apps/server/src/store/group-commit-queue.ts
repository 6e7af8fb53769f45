import { channel } from "node:diagnostics_channel";

/**
 * Published as each batch is sent, with `{ items, size }`: how many items one commit writes together. Tracing
 * subscribes (db.operation.batch.size); with no subscriber nothing is published.
 */
export const groupCommitBatches = channel("plant-store:group-commit.batch");

export interface GroupCommitOptions<Item, Result> {
  /** Writes one batch in one transaction; resolves with one result per item, in order, once durable. */
  writeBatch: (items: Item[]) => Promise<Result[]>;
  /** Most batches being written at once (the SQLite store's one writer thread, a PostgreSQL pool's size). */
  maxInFlight: number;
  /** Most items in one batch; all that are waiting when omitted. */
  maxBatchSize?: number;
}

interface Waiting<Item, Result> {
  item: Item;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: the items added in one event-loop turn are written together as one batch, and each is
 * answered once its batch is committed. While maxInFlight batches are being written, new items wait and
 * go as the next batch as soon as one of them finishes, so one commit (one fsync, one round trip) serves
 * every request that arrived while the previous one was under way.
 */
export class GroupCommitQueue<Item, Result> {
  #waiting: Waiting<Item, Result>[] = [];
  #inFlight = 0;
  #flushScheduled = false;
  readonly #idleWaiters: (() => void)[] = [];
  readonly #maxBatchSize: number;
  readonly #options: GroupCommitOptions<Item, Result>;

  constructor(options: GroupCommitOptions<Item, Result>) {
    this.#options = options;
    this.#maxBatchSize = options.maxBatchSize ?? Number.POSITIVE_INFINITY;
  }

  /** Resolves with the item's result once the batch that carries it has committed; rejects with the batch's error. */
  add(item: Item): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      // Waiting until the end of the turn lets every request parsed in it join the same batch.
      if (!this.#flushScheduled && this.#inFlight < this.#options.maxInFlight) {
        this.#flushScheduled = true;
        setImmediate(this.#scheduledFlush);
      }
    });
  }

  /** Resolves once nothing waits and nothing is being written (what was waiting is sent at once). */
  drain(): Promise<void> {
    this.#flush();
    if (this.#waiting.length === 0 && this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  readonly #scheduledFlush = () => {
    this.#flushScheduled = false;
    this.#flush();
  };

  /** Sends what waits as batches while fewer than maxInFlight are being written. */
  #flush(): void {
    while (this.#waiting.length > 0 && this.#inFlight < this.#options.maxInFlight) {
      this.#write(this.#waiting.splice(0, this.#maxBatchSize));
    }
  }

  #write(batch: Waiting<Item, Result>[]): void {
    this.#inFlight += 1;
    const items = batch.map((entry) => entry.item);
    if (groupCommitBatches.hasSubscribers) groupCommitBatches.publish({ items, size: items.length });
    this.#options
      .writeBatch(items)
      .then(
        (results) => {
          batch.forEach((entry, index) => {
            entry.resolve(results[index]!);
          });
        },
        (error: unknown) => {
          for (const entry of batch) entry.reject(error);
        },
      )
      .finally(() => {
        this.#inFlight -= 1;
        // What gathered meanwhile goes now, without waiting for another turn.
        this.#flush();
        if (this.#waiting.length === 0 && this.#inFlight === 0) {
          for (const resolve of this.#idleWaiters.splice(0)) resolve();
        }
      });
  }
}
