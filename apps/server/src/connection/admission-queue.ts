/** A request waiting for dispatch: when node:http parsed it, and when its caller stops waiting for it. */
export interface Queued<T> {
  item: T;
  arrivedMs: number;
  deadlineMs: number;
  /** Taken or expired: still in one of the queue's arrays, skipped there. */
  done: boolean;
}

/**
 * The queue between node:http and Express. It bounds how long a request waits, never how many are served at once:
 * each request carries a deadline (its caller's, or the server's queue timeout), and only a request past its
 * deadline is taken out unserved (`expire`).
 *
 * First in, first out while every queued request has used less than half of its allowance: a closed loop of any
 * size, whose queue is its connections over the server's capacity and stays there, is served in order and, while
 * that wait is under the timeout, never refused. Once the oldest has used half of its allowance the queue is growing
 * (an open loop past capacity), and the newest is taken first, so the requests served are those whose callers still
 * wait, and the rest expire at their deadline: nobody waits past it (adaptive LIFO, after "Fail at Scale", Maurer,
 * ACM Queue 2015). Pure: every time is the caller's, in wall-clock milliseconds.
 */
export class AdmissionQueue<T> {
  /** In arrival order. Requests with the server's timeout expire in this order too, from the head. */
  #arrivals: Queued<T>[] = [];
  #head = 0;
  /** Requests whose caller's deadline is shorter than the timeout, earliest deadline first (a binary heap). */
  #deadlines: Queued<T>[] = [];
  #length = 0;

  /** Requests waiting. */
  get length(): number {
    return this.#length;
  }

  /**
   * Queues `item`. `ownDeadline` marks a deadline the caller sent (shorter than the server's timeout): those can
   * expire before older requests, so they are also kept in deadline order.
   */
  push(item: T, arrivedMs: number, deadlineMs: number, ownDeadline = false): Queued<T> {
    const queued: Queued<T> = { item, arrivedMs, deadlineMs, done: false };
    this.#arrivals.push(queued);
    if (ownDeadline) this.#heapPush(queued);
    this.#length++;
    return queued;
  }

  /** Whether the oldest request waiting has used half of its allowance: the queue grows, and newest goes first. */
  standing(nowMs: number): boolean {
    const oldest = this.#oldest();
    return oldest !== undefined && 2 * (nowMs - oldest.arrivedMs) > oldest.deadlineMs - oldest.arrivedMs;
  }

  /** The oldest request waiting. */
  #oldest(): Queued<T> | undefined {
    while (this.#head < this.#arrivals.length && this.#arrivals[this.#head]!.done) this.#head++;
    return this.#arrivals[this.#head];
  }

  /** Takes out every request whose deadline has passed, handing each to `expired`. */
  expire(nowMs: number, expired: (queued: Queued<T>) => void): void {
    for (let oldest = this.#oldest(); oldest !== undefined && oldest.deadlineMs <= nowMs; oldest = this.#oldest()) {
      this.#head++;
      this.#finish(oldest);
      expired(oldest);
    }
    while (this.#deadlines.length > 0 && (this.#deadlines[0]!.done || this.#deadlines[0]!.deadlineMs <= nowMs)) {
      const earliest = this.#heapPop();
      if (earliest.done) continue;
      this.#finish(earliest);
      expired(earliest);
    }
    this.#settle();
  }

  /** The next request to dispatch: the oldest, or the newest while the queue stands (see `standing`). */
  take(nowMs: number): Queued<T> | undefined {
    if (this.#length === 0) return undefined;
    let queued: Queued<T>;
    if (this.standing(nowMs)) {
      do queued = this.#arrivals.pop()!;
      while (queued.done);
    } else {
      queued = this.#oldest()!;
      this.#head++;
    }
    this.#finish(queued);
    this.#settle();
    return queued;
  }

  #finish(queued: Queued<T>): void {
    queued.done = true;
    this.#length--;
  }

  #settle(): void {
    if (this.#length === 0) {
      this.#arrivals = [];
      this.#head = 0;
      this.#deadlines = [];
      return;
    }
    // Taken entries before the head are released in blocks, not one shift() per request.
    if (this.#head >= 1024 && this.#head * 2 >= this.#arrivals.length) {
      this.#arrivals = this.#arrivals.slice(this.#head);
      this.#head = 0;
    }
  }

  #heapPush(queued: Queued<T>): void {
    const heap = this.#deadlines;
    let index = heap.push(queued) - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (heap[parent]!.deadlineMs <= queued.deadlineMs) break;
      heap[index] = heap[parent]!;
      index = parent;
    }
    heap[index] = queued;
  }

  #heapPop(): Queued<T> {
    const heap = this.#deadlines;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      let index = 0;
      for (;;) {
        const left = 2 * index + 1;
        if (left >= heap.length) break;
        const right = left + 1;
        const child = right < heap.length && heap[right]!.deadlineMs < heap[left]!.deadlineMs ? right : left;
        if (heap[child]!.deadlineMs >= last.deadlineMs) break;
        heap[index] = heap[child]!;
        index = child;
      }
      heap[index] = last;
    }
    return top;
  }
}
