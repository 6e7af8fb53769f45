import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { Worker } from "node:worker_threads";
import type { NewPlant } from "@plant-store/contract";
import Database from "better-sqlite3";
import { Kysely, Migrator, SqliteDialect } from "kysely";
import { type CreateOutcome, outcomeAgainst, type PlantStore, toPlant } from "../plant-store.js";
import { sqliteMigrations } from "./migrations.js";

interface PendingCreate {
  plant: NewPlant;
  onBatched: ((batchSize: number) => void) | undefined;
  resolve: (outcome: CreateOutcome) => void;
  reject: (error: unknown) => void;
}

type WriterRequest = { type: "create"; plants: NewPlant[] } | { type: "ping" } | { type: "close" };

interface WriterReply {
  seq: number;
  /** For a create: per plant, null where it was inserted, else the row already stored under its id. */
  existing?: ({ name: string; tag: string | null } | null)[];
  error?: { message: string; code?: string };
}

/** An error the writer thread reported, with SQLite's error code (e.g. SQLITE_BUSY) when it had one. */
class SqliteWriterError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = "SqliteWriterError";
  }
}

const WRITER_THREAD = new URL("./sqlite-writer-thread.cjs", import.meta.url);

/**
 * PlantStore on a SQLite file with group commit: the creates that arrive while one transaction commits are
 * written together in the next, and each is acknowledged after its transaction's single durable commit
 * (WAL, synchronous=FULL). One fsync per request would cap throughput near a third of bare Express.
 *
 * The connection lives on a worker thread (sqlite-writer-thread.cjs), so the event loop goes on reading and
 * checking requests while a commit waits for its fsync and while SQLite checkpoints its WAL; one batch is
 * in flight at a time, and the next is gathered meanwhile.
 */
export class SqlitePlantStore implements PlantStore {
  private pending: PendingCreate[] = [];
  private flushScheduled = false;
  private batchInFlight: Promise<void> | undefined;
  private readonly awaitingReply = new Map<number, (reply: WriterReply) => void>();
  private nextSeq = 0;
  /** Set once the store is closed or its writer thread is gone: every later call fails with it. */
  private stopped: Error | undefined;

  private constructor(private readonly writer: Worker) {
    writer.on("message", (reply: WriterReply) => {
      const settle = this.awaitingReply.get(reply.seq);
      this.awaitingReply.delete(reply.seq);
      // The thread keeps the process alive only while an answer is awaited.
      if (this.awaitingReply.size === 0) writer.unref();
      settle?.(reply);
    });
    writer.on("error", (error) => this.stop(error));
    writer.on("exit", () => this.stop(new Error("the SQLite writer thread stopped")));
    writer.unref();
  }

  /** Opens (creating file and folder if needed) and migrates the database at `filename`. */
  static async open(filename: string): Promise<SqlitePlantStore> {
    // A second connection (the writer thread's) to ":memory:" would be a different, empty database.
    if (filename === ":memory:") throw new Error("the SQLite store needs a file: an in-memory database cannot be shared");
    mkdirSync(dirname(filename), { recursive: true });
    const db = new Database(filename);
    try {
      db.pragma("journal_mode = WAL");
      db.pragma("busy_timeout = 5000");
      await migrate(db);
    } finally {
      db.close();
    }
    const writer = new Worker(WRITER_THREAD, { workerData: { filename } });
    // The thread's first message says it has opened the database; an error or exit first is a failed open.
    await new Promise<void>((resolve, reject) => {
      const onExit = (code: number) => reject(new Error(`the SQLite writer thread exited with code ${code} while opening`));
      writer.once("error", reject);
      writer.once("exit", onExit);
      writer.once("message", () => {
        writer.off("error", reject);
        writer.off("exit", onExit);
        resolve();
      });
    });
    return new SqlitePlantStore(writer);
  }

  create(plant: NewPlant, onBatched?: (batchSize: number) => void): Promise<CreateOutcome> {
    return new Promise((resolve, reject) => {
      if (this.stopped) {
        reject(this.stopped);
        return;
      }
      this.pending.push({ plant, onBatched, resolve, reject });
      if (!this.flushScheduled && this.batchInFlight === undefined) {
        this.flushScheduled = true;
        setImmediate(this.flush);
      }
    });
  }

  /** Sends what is pending as the next batch, unless one is in flight (its completion sends the next). */
  private readonly flush = () => {
    this.flushScheduled = false;
    if (this.batchInFlight !== undefined || this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    for (const entry of batch) entry.onBatched?.(batch.length);
    this.batchInFlight = this.request({ type: "create", plants: batch.map((entry) => entry.plant) })
      .then(
        (reply) => {
          batch.forEach((entry, index) => {
            const row = reply.existing?.[index];
            entry.resolve(outcomeAgainst(entry.plant, row ? toPlant(row) : undefined));
          });
        },
        (error: unknown) => {
          for (const entry of batch) entry.reject(error);
        },
      )
      .finally(() => {
        this.batchInFlight = undefined;
        this.flush();
      });
  };

  private request(message: WriterRequest): Promise<WriterReply> {
    return new Promise((resolve, reject) => {
      if (this.stopped) {
        reject(this.stopped);
        return;
      }
      const seq = this.nextSeq++;
      this.awaitingReply.set(seq, (reply) => {
        if (reply.error) reject(new SqliteWriterError(reply.error.message, reply.error.code));
        else resolve(reply);
      });
      this.writer.ref();
      this.writer.postMessage({ ...message, seq });
    });
  }

  /** Fails everything pending and awaited with `error`; later calls fail with it too. */
  private stop(error: Error): void {
    this.stopped ??= error;
    for (const entry of this.pending.splice(0)) entry.reject(this.stopped);
    for (const settle of this.awaitingReply.values()) settle({ seq: -1, error: { message: this.stopped.message } });
    this.awaitingReply.clear();
  }

  async ping(): Promise<void> {
    await this.request({ type: "ping" });
  }

  /** Commits what is pending, then closes the database and ends the writer thread. */
  async close(): Promise<void> {
    if (this.stopped) return;
    while (this.batchInFlight !== undefined || this.pending.length > 0) {
      this.flush();
      await this.batchInFlight;
    }
    const exited = new Promise((resolve) => this.writer.once("exit", resolve));
    const closed = this.request({ type: "close" });
    this.stopped = new Error("The database connection is not open");
    await closed;
    // Awaiting the thread's exit must keep the process alive (the reply just unref'd it).
    this.writer.ref();
    await exited;
  }
}

async function migrate(db: Database.Database): Promise<void> {
  // Kysely's SqliteDriver would close the database on destroy(); it is only borrowed for migrating.
  const kysely = new Kysely<unknown>({ dialect: new SqliteDialect({ database: db }) });
  const { error } = await new Migrator({ db: kysely, provider: sqliteMigrations }).migrateToLatest();
  if (error) throw error;
}
