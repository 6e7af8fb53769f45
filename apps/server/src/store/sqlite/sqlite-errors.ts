import { StoreUnavailableError } from "../store-unavailable.js";
import type { SqliteFailure } from "./thread-messages.js";

// SQLite's primary result codes that mean "the database cannot be written right now", not "the statement
// is wrong": another connection holds the lock past busy_timeout (BUSY, LOCKED), the disk failed or is
// full (IOERR, FULL), the file or its folder cannot be written or opened (READONLY, CANTOPEN). Each has
// extended codes (SQLITE_IOERR_FSYNC, SQLITE_READONLY_DBMOVED, ...), matched by their prefix.
const UNAVAILABLE_CODES = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|READONLY|CANTOPEN)(_|$)/;

/** An error a SQLite thread (the writer, or the migration as the store opens) reported, with SQLite's error code when it had one. */
export class SqliteWriterError extends Error {
  override name = "SqliteWriterError";
  readonly code: string | undefined;

  constructor(failure: SqliteFailure) {
    super(failure.message);
    this.code = failure.code;
  }
}

/** The error a create or ping rejects with: StoreUnavailableError when SQLite cannot write right now. */
export function classifySqliteFailure(failure: SqliteFailure): Error {
  const error = new SqliteWriterError(failure);
  return failure.code !== undefined && UNAVAILABLE_CODES.test(failure.code)
    ? new StoreUnavailableError("SQLite cannot write right now", { cause: error })
    : error;
}
