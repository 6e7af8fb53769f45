import type { Plant } from "@plant-store/contract";
import { type DatabaseUrl, describeDatabaseUrl } from "../store/database-url.js";
import { postgresMigrations } from "../store/postgres/migrations.js";
import { PostgresBulkStore } from "../store/postgres/postgres-bulk-store.js";
import { describeSchema } from "../store/schema-version.js";
import { sqliteMigrations } from "../store/sqlite/migrations.js";
import { SqliteStoreReader } from "../store/sqlite/sqlite-reader.js";
import type { StoreReader } from "../store/store-reader.js";
import { StoreReadError } from "../operator-errors.js";

/** What `inspect` reports of a store. */
export interface StoreSummary {
  /** "SQLite /var/lib/plant-store/plants.db" or "PostgreSQL postgres://plants:redacted@db:5432/plants". */
  location: string;
  /** As describeSchema words it: "version 2, this server's". */
  schema: string;
  plants: number;
  bytes: number;
}

/**
 * Reads a store without writing to it: SQLite opened read-only, PostgreSQL in read-only transactions, neither
 * migrated (a store of an older schema is reported as such, and left so). `read` gets the open store.
 */
export async function readStore<Result>(
  database: DatabaseUrl,
  { connectTimeoutMs }: { connectTimeoutMs: number },
  read: (store: StoreReader, location: string, knownMigrations: string[]) => Promise<Result>,
): Promise<Result> {
  const location = `${database.system === "sqlite" ? "SQLite" : "PostgreSQL"} ${describeDatabaseUrl(database)}`;
  if (database.system === "sqlite") {
    // A short read: no sidecar files left beside a store no server has open.
    const store = SqliteStoreReader.open(database.file, { leaveNoTrace: true });
    try {
      return await read(store, location, Object.keys(await sqliteMigrations.getMigrations()));
    } finally {
      await store.close();
    }
  }
  const store = await PostgresBulkStore.open(database, { readOnly: true, connectTimeoutMs });
  try {
    if (!(await store.hasPlantsTable())) {
      throw new StoreReadError(
        `${location} holds no Plant Store: it has no plants table (no server has started on it)`,
      );
    }
    return await read(store, location, Object.keys(await postgresMigrations.getMigrations()));
  } finally {
    await store.close();
  }
}

/** The store's location, schema, plant count and size on disk. */
export function summarizeStore(database: DatabaseUrl, options: { connectTimeoutMs: number }): Promise<StoreSummary> {
  return readStore(database, options, async (store, location, known) => ({
    location,
    schema: describeSchema(await store.appliedMigrations(), known),
    plants: await store.countPlants(),
    bytes: await store.sizeBytes(),
  }));
}

/** The plant stored under `id`, or undefined; `location` names the store for a message. */
export function findPlant(
  database: DatabaseUrl,
  id: bigint,
  options: { connectTimeoutMs: number },
): Promise<{ location: string; plant: Plant | undefined }> {
  return readStore(database, options, async (store, location) => ({ location, plant: await store.getPlant(id) }));
}
