/** Whether the process has begun shutting down: the shutdown sequence sets it, GET /readyz reads it. */
export class Lifecycle {
  #shuttingDown = false;
  #onShutdown: (() => void)[] = [];

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Runs `listener` once, when shutdown begins. */
  onShutdown(listener: () => void): void {
    if (this.#shuttingDown) listener();
    else this.#onShutdown.push(listener);
  }

  beginShutdown(): void {
    if (this.#shuttingDown) return;
    this.#shuttingDown = true;
    for (const listener of this.#onShutdown.splice(0)) listener();
  }
}
