import type { NewPlant } from "@plant-store/contract";
import { sqliteResultCodeName } from "./sqlite-result-codes.js";

// The messages between a SqlitePlantStore and its two threads: the migration thread that runs once as the
// store opens, and the writer thread that owns the connection from then on. Both are typed here, once.

/** What each thread is started with (its workerData). */
export interface SqliteThreadSettings {
  filename: string;
  /** How long a write waits for another connection's lock before failing with SQLITE_BUSY. */
  busyTimeoutMs: number;
}

/** What SQLite said when a request failed; code is its error code (e.g. SQLITE_BUSY) when it had one. */
export interface SqliteFailure {
  message: string;
  code: string | undefined;
}

/**
 * A thrown value as a thread reports it: its message, and SQLite's name for the result code node:sqlite gives as
 * `errcode` (its `code` is ERR_SQLITE_ERROR for every SQLite failure); a string `code` is kept for other errors.
 */
export function describeFailure(error: unknown): SqliteFailure {
  const { message, code, errcode } = (error ?? {}) as { message?: unknown; code?: unknown; errcode?: unknown };
  const named = typeof errcode === "number" ? sqliteResultCodeName(errcode) : undefined;
  return { message: String(message ?? error), code: named ?? (typeof code === "string" ? code : undefined) };
}

/** Sent by the migration thread, once, before it ends. */
export type MigrationMessage = { type: "migrated" } | { type: "failed"; error: SqliteFailure };

/** What the store asks of the writer thread. */
export type WriterCommand =
  | { type: "create"; plants: NewPlant[] }
  /** Commits a one-row write, proving the database can be written right now. */
  | { type: "ping" }
  | { type: "close" };

/** A command as sent to the writer thread; its reply carries the same seq. */
export type WriterRequest = WriterCommand & { seq: number };

/** The row already stored under an id: its name and tag columns. */
export interface StoredRow {
  name: string;
  tag: string | null;
}

/** Sent by the writer thread: once when its database is open, then one reply per request. */
export type WriterMessage =
  | { type: "ready" }
  | {
      type: "reply";
      seq: number;
      /** For a create: per plant, null where it was inserted, else the row already stored under its id. */
      existing?: (StoredRow | null)[];
      error?: SqliteFailure;
    };

export type WriterReply = Extract<WriterMessage, { type: "reply" }>;
