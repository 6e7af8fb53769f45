/** A request waiting for dispatch, stamped on both of admission control's clocks when node:http parsed it. */
export interface Queued<T> {
  item: T;
  wallMs: number;
  cpuMs: number;
}

/**
 * CoDel as "Fail at Scale" (Maurer, ACM Queue 2015) applies it to a server's own queue. While the queue has not been
 * empty for INTERVAL_MS it is a standing queue, and a request may wait only TARGET_MS; otherwise it may wait
 * INTERVAL_MS (a burst drains). Both are counted in the event loop's CPU time (admission-clock.ts), never in wall
 * time: the wait a request can see is the server's own work queued ahead of it, so a CPU quota scales both limits by
 * the pod's share by itself, and a busy host, which stretches every wait in wall time, never makes a short queue
 * look long or a draining one look standing. At a fifth of a core they are Facebook's N = 100 ms and M = 25 ms of
 * wall time; a longer interval in CPU time let a queue build for half a second there before CoDel acted
 * (docs/performance.md#overload).
 */
export const INTERVAL_MS = 20;
export const TARGET_MS = 5;

/**
 * The queue between node:http and Express: CoDel's wait limit, and adaptive LIFO (first in, first out while no queue
 * stands; newest first while one does, so the requests served are those whose clients still wait for them). Pure:
 * the times come from the caller's clock; every argument is the event loop's CPU time in milliseconds.
 */
export class AdmissionQueue<T> {
  #items: Queued<T>[] = [];
  #head = 0;
  #lastEmptyCpuMs: number;

  constructor(nowCpuMs: number) {
    this.#lastEmptyCpuMs = nowCpuMs;
  }

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(item: T, wallMs: number, cpuMs: number): void {
    if (this.length === 0) this.#lastEmptyCpuMs = cpuMs;
    this.#items.push({ item, wallMs, cpuMs });
  }

  /** Whether a queue stands: it has not been empty for INTERVAL_MS. */
  standing(cpuMs: number): boolean {
    return this.length > 0 && cpuMs - this.#lastEmptyCpuMs >= INTERVAL_MS;
  }

  /** How long a request may wait now. */
  waitLimitMs(cpuMs: number): number {
    return this.standing(cpuMs) ? TARGET_MS : INTERVAL_MS;
  }

  /** Removes every request that waited past the limit, oldest first, handing each to `refuse`. */
  expire(cpuMs: number, refuse: (queued: Queued<T>) => void): void {
    const limitMs = this.waitLimitMs(cpuMs);
    while (this.length > 0) {
      const oldest = this.#items[this.#head]!;
      if (cpuMs - oldest.cpuMs <= limitMs) break;
      this.#head++;
      refuse(oldest);
    }
    this.#settle(cpuMs);
  }

  /** The next request to dispatch: the oldest while no queue stands, the newest while one does. */
  take(cpuMs: number): Queued<T> | undefined {
    if (this.length === 0) return undefined;
    const queued = this.standing(cpuMs) ? this.#items.pop()! : this.#items[this.#head++]!;
    this.#settle(cpuMs);
    return queued;
  }

  #settle(cpuMs: number): void {
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
    this.#lastEmptyCpuMs = cpuMs;
  }
}
