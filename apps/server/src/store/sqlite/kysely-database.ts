import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import type { SqliteDatabase } from "kysely";

/**
 * A node:sqlite connection as Kysely's SqliteDialect takes one. The dialect was written for better-sqlite3 and
 * calls four members of it (prepare, and a statement's reader flag, all, run and iterate); node:sqlite has the
 * same calls with spread parameters, and a statement reads rows when it has result columns. close() is left to
 * the caller, who lends the connection for migrating and closes it after.
 */
export function kyselyDatabaseOver(db: DatabaseSync): SqliteDatabase {
  return {
    close() {},
    prepare(sql) {
      const statement = db.prepare(sql);
      const spread = (parameters: ReadonlyArray<unknown>) => parameters as SQLInputValue[];
      return {
        reader: statement.columns().length > 0,
        all: (parameters) => statement.all(...spread(parameters)),
        run: (parameters) => statement.run(...spread(parameters)),
        iterate: (parameters) => statement.iterate(...spread(parameters)),
      };
    },
  };
}
