/** Whether the process has begun shutting down: the shutdown sequence sets it, GET /readyz reads it. */
export class Lifecycle {
  #shuttingDown = false;

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  beginShutdown(): void {
    this.#shuttingDown = true;
  }
}
