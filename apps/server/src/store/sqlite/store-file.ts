import type { DatabaseSync } from "node:sqlite";

// What operator code asks of a SQLite store file through a connection of its own (a snapshot's, a restore's
// check, a reader's): the queries live here, beside the store that owns the schema, not in store-operations/.

export function hasTable(db: DatabaseSync, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

/** Plants in the store; the plants table must exist (hasTable). */
export function countPlants(db: DatabaseSync): number {
  return Number((db.prepare("SELECT count(*) AS count FROM plants").get() as { count: number | bigint }).count);
}

/** The migrations applied, in name order; none when no server has opened the file. */
export function appliedMigrations(db: DatabaseSync): string[] {
  if (!hasTable(db, "kysely_migration")) return [];
  return (db.prepare("SELECT name FROM kysely_migration ORDER BY name").all() as { name: string }[]).map(
    (row) => row.name,
  );
}

/** What PRAGMA integrity_check finds wrong: nothing for a whole file. */
export function integrityProblems(db: DatabaseSync): string[] {
  return (db.prepare("PRAGMA integrity_check").all() as { integrity_check: string }[])
    .map((row) => row.integrity_check)
    .filter((line) => line !== "ok");
}
