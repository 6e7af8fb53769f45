import { DatabaseSync } from "node:sqlite";

/**
 * Runs `query` against the SQLite file through a second, read-only connection (as the WAL allows while the
 * store writes) and closes it. The file must exist. Integers come back as bigints, so int64 ids are exact.
 */
export function querySqliteFile<Result>(file: string, query: (db: DatabaseSync) => Result): Result {
  const db = new DatabaseSync(file, { readOnly: true, readBigInts: true });
  try {
    return query(db);
  } finally {
    db.close();
  }
}
