/** A request waiting for dispatch, stamped on both of admission control's clocks when node:http parsed it. */
export interface Queued<T> {
  item: T;
  wallMs: number;
  cpuMs: number;
}

/**
 * CoDel as "Fail at Scale" (Maurer, ACM Queue 2015) applies it to a server's own queue. While the queue has not been
 * empty for INTERVAL_MS it is a standing queue, and a request may wait only TARGET_MS of the event loop's CPU time;
 * otherwise it may wait INTERVAL_MS of it (a burst drains). Waits are in CPU time (see admission-clock.ts), so a busy
 * host or a CPU quota never makes a short queue look long; a request that waited MAX_WALL_WAIT_MS of wall time is
 * refused whatever its CPU wait (the queue then stands behind the store, not the event loop), being past any
 * client's patience.
 */
export const INTERVAL_MS = 100;
export const TARGET_MS = 5;
export const MAX_WALL_WAIT_MS = 1_000;

/**
 * The queue between node:http and Express: CoDel's wait limit, and adaptive LIFO (first in, first out while no queue
 * stands; newest first while one does, so the requests served are those whose clients still wait for them). Pure:
 * the times come from the caller's clock.
 */
export class AdmissionQueue<T> {
  #items: Queued<T>[] = [];
  #head = 0;
  #lastEmptyWallMs: number;

  constructor(nowWallMs: number) {
    this.#lastEmptyWallMs = nowWallMs;
  }

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(item: T, wallMs: number, cpuMs: number): void {
    if (this.length === 0) this.#lastEmptyWallMs = wallMs;
    this.#items.push({ item, wallMs, cpuMs });
  }

  /** Whether a queue stands: it has not been empty for INTERVAL_MS. */
  standing(wallMs: number): boolean {
    return this.length > 0 && wallMs - this.#lastEmptyWallMs >= INTERVAL_MS;
  }

  /** How long, in CPU milliseconds, a request may wait now. */
  waitLimitMs(wallMs: number): number {
    return this.standing(wallMs) ? TARGET_MS : INTERVAL_MS;
  }

  /** Removes every request that waited past the limit, oldest first, handing each to `refuse`. */
  expire(wallMs: number, cpuMs: number, refuse: (queued: Queued<T>) => void): void {
    const limitMs = this.waitLimitMs(wallMs);
    while (this.length > 0) {
      const oldest = this.#items[this.#head]!;
      if (cpuMs - oldest.cpuMs <= limitMs && wallMs - oldest.wallMs <= MAX_WALL_WAIT_MS) break;
      this.#head++;
      refuse(oldest);
    }
    this.#settle(wallMs);
  }

  /** The next request to dispatch: the oldest while no queue stands, the newest while one does. */
  take(wallMs: number): Queued<T> | undefined {
    if (this.length === 0) return undefined;
    const queued = this.standing(wallMs) ? this.#items.pop()! : this.#items[this.#head++]!;
    this.#settle(wallMs);
    return queued;
  }

  #settle(wallMs: number): void {
    if (this.length > 0) {
      // Taken entries before the head are released in blocks, not one shift() per request.
      if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
        this.#items = this.#items.slice(this.#head);
        this.#head = 0;
      }
      return;
    }
    this.#items = [];
    this.#head = 0;
    this.#lastEmptyWallMs = wallMs;
  }
}
