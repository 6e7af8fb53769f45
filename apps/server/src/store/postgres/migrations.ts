import type { Kysely, Migration, MigrationProvider } from "kysely";

// Versioned schema changes, applied in name order by Kysely's Migrator at start-up under its
// PostgreSQL advisory lock. Never edit one that has shipped: add the next, and keep each one
// compatible with the code of the release before it (rolling deploys run both at once).
const migrations: Record<string, Migration> = {
  "0001_create_plants": {
    async up(db: Kysely<unknown>) {
      // BIGINT is exactly int64: every id from -2^63 to 2^63-1 fits.
      await db.schema
        .createTable("plants")
        .addColumn("id", "bigint", (column) => column.primaryKey())
        .addColumn("name", "text", (column) => column.notNull())
        .addColumn("tag", "text")
        .execute();
    },
  },
};

export const postgresMigrations: MigrationProvider = {
  getMigrations: async () => migrations,
};
