import { type Kysely, type Migration, type MigrationProvider, sql } from "kysely";

// Versioned schema changes, applied in name order by Kysely's Migrator at start-up. Never edit one that
// has shipped: add the next.
const migrations: Record<string, Migration> = {
  "0001_create_plants": {
    async up(db: Kysely<unknown>) {
      // INTEGER PRIMARY KEY is SQLite's 64-bit rowid: every int64 id is stored exactly.
      await db.schema
        .createTable("plants")
        .addColumn("id", "integer", (column) => column.primaryKey())
        .addColumn("name", "text", (column) => column.notNull())
        .addColumn("tag", "text")
        .execute();
    },
  },
  "0002_create_writer_probe": {
    async up(db: Kysely<unknown>) {
      // One row the store's ping() rewrites: readiness means the database can be written, not only read.
      await db.schema
        .createTable("writer_probe")
        .addColumn("id", "integer", (column) => column.primaryKey().check(sql`id = 1`))
        .addColumn("pinged_at", "integer", (column) => column.notNull())
        .execute();
    },
  },
};

export const sqliteMigrations: MigrationProvider = {
  getMigrations: async () => migrations,
};
