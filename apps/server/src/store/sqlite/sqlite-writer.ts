import { once } from "node:events";
import type { Worker } from "node:worker_threads";
import type { Logger } from "../../logger.js";
import { StoreUnavailableError } from "../store-unavailable.js";
import { classifySqliteFailure } from "./sqlite-errors.js";
import { type StartedSqliteThread, startSqliteThread } from "./sqlite-thread.js";
import type { WriterCommand, WriterMessage, WriterReply, SqliteThreadSettings } from "./thread-messages.js";

// After the thread dies, the next one starts after this delay, doubled for each start in a row that fails
// before a request succeeds: a thread that cannot open its database is retried, but never in a tight loop.
const FIRST_RESTART_DELAY_MS = 100;
const MAX_RESTART_DELAY_MS = 5_000;

export interface SqliteWriterOptions extends SqliteThreadSettings {
  logger?: Logger | undefined;
}

interface AwaitedReply {
  resolve: (reply: WriterReply) => void;
  reject: (error: Error) => void;
}

const notOpen = () => new Error("The database connection is not open");

/**
 * The worker thread that owns the SQLite connection, seen as requests and replies. SQLite's own errors come
 * back as replies; the thread dying (a crash, not a failed statement) fails every request it had not
 * answered with StoreUnavailableError, since a create may or may not have committed and its id makes the
 * retry safe, and starts a new thread. Until that one is ready every request fails the same way, so
 * creates answer 503 and GET /readyz is 503.
 *
 * Restarted rather than failing GET /healthz: the thread holds nothing but its connection and everything
 * acknowledged is on disk, so a new thread serves exactly as a new process would, within 100 ms, without
 * dropping the process's HTTP connections or waiting for an orchestrator to notice.
 */
export class SqliteWriter {
  /** The thread answering requests; undefined while a new one starts and once closed. */
  #thread: Worker | undefined;
  #starting: Promise<void> | undefined;
  #restartTimer: NodeJS.Timeout | undefined;
  #restartDelayMs = FIRST_RESTART_DELAY_MS;
  readonly #awaitingReply = new Map<number, AwaitedReply>();
  #nextSeq = 0;
  #closed = false;
  readonly #options: SqliteWriterOptions;

  // biome-ignore lint/style/useConsistentMemberAccessibility: ES has no private constructor; start() is the only way in.
  private constructor(options: SqliteWriterOptions) {
    this.#options = options;
  }

  /** Starts the thread and waits until it has opened the database; rejects if it cannot. */
  static async start(options: SqliteWriterOptions): Promise<SqliteWriter> {
    const writer = new SqliteWriter(options);
    writer.#attach(await startWriterThread(options));
    return writer;
  }

  /** Resolves with the thread's reply; rejects with what SQLite said (classified) or StoreUnavailableError. */
  request(command: WriterCommand): Promise<WriterReply> {
    if (this.#closed) return Promise.reject(notOpen());
    if (this.#thread === undefined) {
      return Promise.reject(new StoreUnavailableError("the SQLite writer thread is restarting"));
    }
    return this.#send(this.#thread, command);
  }

  /** Closes the database and ends the thread; later requests fail. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#restartTimer);
    await this.#starting;
    const thread = this.#thread;
    if (thread === undefined) return;
    const exited = once(thread, "exit");
    await this.#send(thread, { type: "close" });
    // Awaiting the thread's exit must keep the process alive (the reply just unref'd it).
    thread.ref();
    await exited;
  }

  /** Test-only: ends the thread as a crash would, to show that the store starts a new one. */
  async terminateThread(): Promise<void> {
    await this.#thread?.terminate();
  }

  #send(thread: Worker, command: WriterCommand): Promise<WriterReply> {
    return new Promise((resolve, reject) => {
      const seq = this.#nextSeq++;
      this.#awaitingReply.set(seq, { resolve, reject });
      // The thread keeps the process alive only while an answer is awaited.
      thread.ref();
      thread.postMessage({ ...command, seq });
    });
  }

  #attach({ thread, exited }: StartedSqliteThread<WriterMessage>): void {
    this.#thread = thread;
    thread.on("message", (message: WriterMessage) => {
      if (message.type !== "reply") return;
      const awaited = this.#awaitingReply.get(message.seq);
      this.#awaitingReply.delete(message.seq);
      if (this.#awaitingReply.size === 0) thread.unref();
      if (message.error) {
        awaited?.reject(classifySqliteFailure(message.error));
      } else {
        this.#restartDelayMs = FIRST_RESTART_DELAY_MS;
        awaited?.resolve(message);
      }
    });
    thread.on("error", (error) => this.#options.logger?.error({ err: error }, "SQLite writer thread failed"));
    void exited.then((code) => this.#detach(thread, code));
    thread.unref();
  }

  /** The thread is gone: fails what it left unanswered and, unless closing, starts another. */
  #detach(thread: Worker, exitCode: number): void {
    if (this.#thread !== thread) return;
    this.#thread = undefined;
    const failure = this.#closed
      ? notOpen()
      : new StoreUnavailableError(`the SQLite writer thread exited (code ${exitCode})`);
    for (const awaited of this.#awaitingReply.values()) awaited.reject(failure);
    this.#awaitingReply.clear();
    if (!this.#closed) this.#scheduleRestart();
  }

  #scheduleRestart(): void {
    const delayMs = this.#restartDelayMs;
    this.#restartDelayMs = Math.min(delayMs * 2, MAX_RESTART_DELAY_MS);
    this.#options.logger?.error({ delayMs }, "SQLite writer thread stopped; starting a new one");
    this.#restartTimer = setTimeout(() => {
      this.#starting = startWriterThread(this.#options).then(
        async (started) => {
          this.#starting = undefined;
          if (this.#closed) await started.thread.terminate();
          else this.#attach(started);
        },
        (error: unknown) => {
          this.#starting = undefined;
          this.#options.logger?.error({ err: error }, "SQLite writer thread could not start");
          if (!this.#closed) this.#scheduleRestart();
        },
      );
    }, delayMs);
    // A restart pending must not keep an otherwise finished process alive.
    this.#restartTimer.unref();
  }
}

/** A new writer thread, once it has opened the database; an error or exit first rejects. */
function startWriterThread(settings: SqliteThreadSettings): Promise<StartedSqliteThread<WriterMessage>> {
  return startSqliteThread<WriterMessage>("sqlite-writer-thread", settings);
}
