import type { NewPlant } from "@plant-store/contract";

/** What the writer thread is started with (its workerData). */
export interface WriterSettings {
  filename: string;
  /** How long a write waits for another connection's lock before failing with SQLITE_BUSY. */
  busyTimeoutMs: number;
}

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

/** What SQLite said when a request failed; code is its error code (e.g. SQLITE_BUSY) when it had one. */
export interface WriterFailure {
  message: string;
  code: string | undefined;
}

/** Sent by the writer thread: once when its database is open, then one reply per request. */
export type WriterMessage =
  | { type: "ready" }
  | {
      type: "reply";
      seq: number;
      /** For a create: per plant, null where it was inserted, else the row already stored under its id. */
      existing?: (StoredRow | null)[];
      error?: WriterFailure;
    };

export type WriterReply = Extract<WriterMessage, { type: "reply" }>;
