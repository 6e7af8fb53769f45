import type { Plant } from "@plant-store/contract";

/** A plant as a store holds it: the id with its row. */
export interface PlantRow {
  id: bigint;
  name: string;
  tag: string | null;
}

/**
 * A store opened for an operator to read (`plant-store inspect`, copy-store's source and target): never migrated;
 * SQLite opened read-only, PostgreSQL in read-only transactions unless opened to be written by copy-store.
 */
export interface StoreReader {
  /** The newest migration applied, or undefined when none is (a database no server has opened). */
  appliedMigrations(): Promise<string[]>;
  countPlants(): Promise<number>;
  getPlant(id: bigint): Promise<Plant | undefined>;
  /** What the store takes on disk: the SQLite file and its WAL, or the PostgreSQL plants table with its index. */
  sizeBytes(): Promise<number>;
  close(): Promise<void>;
}
