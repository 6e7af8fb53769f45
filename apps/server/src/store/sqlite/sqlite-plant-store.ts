import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { NewPlant } from "@plant-store/contract";
import type { Logger } from "../../logger.js";
import { GroupCommitQueue } from "../group-commit-queue.js";
import { type CreateOutcome, outcomeAgainst, type PlantStore, toPlant } from "../plant-store.js";
import { SqliteWriterError } from "./sqlite-errors.js";
import { startSqliteThread } from "./sqlite-thread.js";
import { SqliteWriter } from "./sqlite-writer.js";
import { StoreLock } from "./store-lock.js";
import type { MigrationMessage, SqliteThreadSettings } from "./thread-messages.js";

export interface SqliteStoreOptions {
  /** How long a write waits for another connection's lock before the create fails with StoreUnavailableError. */
  busyTimeoutMs?: number;
  /** Where the writer thread's crashes and restarts are reported. */
  logger?: Logger;
}

const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

/**
 * PlantStore on a SQLite file with group commit: the creates that arrive while one transaction commits are
 * written together in the next, and each is acknowledged after its transaction's single durable commit
 * (WAL, synchronous=FULL). One fsync per request would cap throughput near a third of bare Express.
 *
 * The connection lives on a worker thread (sqlite-writer-thread.ts), so the event loop goes on reading and
 * checking requests while a commit waits for its fsync and while SQLite checkpoints its WAL; one batch is
 * in flight at a time, and the next is gathered meanwhile. A database that cannot be written (locked past
 * the busy timeout, full, read-only, failing I/O) or a writer thread that died fails the batch's creates
 * with StoreUnavailableError and rolls the batch back.
 */
export class SqlitePlantStore implements PlantStore {
  readonly #queue = new GroupCommitQueue<NewPlant, CreateOutcome>({
    writeBatch: (plants) => this.#writeBatch(plants),
    maxInFlight: 1,
  });

  readonly #writer: SqliteWriter;
  readonly #lock: StoreLock;

  // biome-ignore lint/style/useConsistentMemberAccessibility: ES has no private constructor; open() is the only way in.
  private constructor(writer: SqliteWriter, lock: StoreLock) {
    this.#writer = writer;
    this.#lock = lock;
  }

  /**
   * Opens (creating file and folder if needed) and migrates the database at `filename`. Throws StoreInUseError, at
   * once, while another process has it open: the file is one process's store (store-lock.ts).
   */
  static async open(filename: string, options: SqliteStoreOptions = {}): Promise<SqlitePlantStore> {
    // A second connection (the writer thread's) to ":memory:" would be a different, empty database.
    if (filename === ":memory:")
      throw new Error("the SQLite store needs a file: an in-memory database cannot be shared");
    const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
    mkdirSync(dirname(filename), { recursive: true });
    const lock = StoreLock.acquire(filename);
    try {
      await migrate({ filename, busyTimeoutMs });
      return new SqlitePlantStore(await SqliteWriter.start({ filename, busyTimeoutMs, logger: options.logger }), lock);
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  create(plant: NewPlant): Promise<CreateOutcome> {
    return this.#queue.add(plant);
  }

  async #writeBatch(plants: NewPlant[]): Promise<CreateOutcome[]> {
    const reply = await this.#writer.request({ type: "create", plants });
    return plants.map((plant, index) => {
      const row = reply.existing?.[index];
      return outcomeAgainst(plant, row ? toPlant(row) : undefined);
    });
  }

  /** Resolves once a one-row write commits: the database can be written, not only read. */
  async ping(): Promise<void> {
    await this.#writer.request({ type: "ping" });
  }

  /** Commits what is pending, then closes the database, ends the writer thread and lets another process open it. */
  async close(): Promise<void> {
    try {
      await this.#queue.drain();
      await this.#writer.close();
    } finally {
      this.#lock.release();
    }
  }

  /** Test-only: ends the writer thread as a crash would, to show that the store starts a new one. */
  terminateWriterThread(): Promise<void> {
    return this.#writer.terminateThread();
  }
}

/** Creates or updates the schema on a thread of its own, which ends once it is done (sqlite-migration-thread.ts). */
async function migrate(settings: SqliteThreadSettings): Promise<void> {
  const { first, exited } = await startSqliteThread<MigrationMessage>("sqlite-migration-thread", settings);
  await exited;
  if (first.type === "failed") throw new SqliteWriterError(first.error);
}
