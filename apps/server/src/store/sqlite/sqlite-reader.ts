import { existsSync, statSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { pathToFileURL } from "node:url";
import type { Plant } from "@plant-store/contract";
import { oneLine } from "../../one-line.js";
import { toPlant } from "../plant-store.js";
import type { PlantRow, StoreReader } from "../store-reader.js";
import { appliedMigrations, countPlants, hasTable } from "./store-file.js";
import { StoreReadError } from "../../operator-errors.js";

/**
 * A SQLite store opened read-only, beside a server that may be writing it (WAL lets a reader and a writer
 * share the file): what operator commands read, with nothing migrated or written.
 */
export class SqliteStoreReader implements StoreReader {
  readonly #db: DatabaseSync;

  // biome-ignore lint/style/useConsistentMemberAccessibility: ES has no private constructor; open() is the only way in.
  private constructor(
    db: DatabaseSync,
    readonly file: string,
  ) {
    this.#db = db;
  }

  /**
   * Opens the store at `file` (an absolute path) read-only; refuses a missing file or one that is not a store.
   * `leaveNoTrace`, for a short read: a store no server has open (it has no WAL file) is opened as immutable, so
   * SQLite creates no WAL and shared-memory files beside it, which a read-only connection could not remove.
   */
  static open(file: string, { leaveNoTrace = false } = {}): SqliteStoreReader {
    if (!statSync(file, { throwIfNoEntry: false })?.isFile())
      throw new StoreReadError(`no SQLite store at ${file} (DATABASE_URL)`);
    let db: DatabaseSync | undefined;
    try {
      const idle = leaveNoTrace && !existsSync(`${file}-wal`);
      const location = idle ? new URL(`${pathToFileURL(file).href}?immutable=1`) : file;
      db = new DatabaseSync(location, { readOnly: true, readBigInts: true });
      if (!hasTable(db, "plants"))
        throw new StoreReadError(`${file} is a SQLite database without a plants table, not a Plant Store`);
      return new SqliteStoreReader(db, file);
    } catch (error) {
      db?.close();
      if (error instanceof StoreReadError) throw error;
      throw new StoreReadError(`${file} cannot be read as a SQLite store: ${oneLine(error)}`);
    }
  }

  /** Starts one read transaction: every read until close() sees the store as it was now, whatever a server writes. */
  holdSnapshot(): void {
    this.#db.exec("BEGIN");
    // A deferred transaction takes its snapshot at its first read.
    this.#db.prepare("SELECT 1 FROM plants LIMIT 1").get();
  }

  async appliedMigrations(): Promise<string[]> {
    return appliedMigrations(this.#db);
  }

  async countPlants(): Promise<number> {
    return countPlants(this.#db);
  }

  async getPlant(id: bigint): Promise<Plant | undefined> {
    const row = this.#db.prepare("SELECT name, tag FROM plants WHERE id = ?").get(id) as PlantRow | undefined;
    return row === undefined ? undefined : toPlant(row);
  }

  /** Every plant in id order, read as it is iterated. */
  plantsInIdOrder(): Iterator<PlantRow> {
    return this.#db.prepare("SELECT id, name, tag FROM plants ORDER BY id").iterate() as Iterator<PlantRow>;
  }

  async sizeBytes(): Promise<number> {
    const wal = statSync(`${this.file}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    return statSync(this.file).size + wal;
  }

  async close(): Promise<void> {
    this.#db.close();
  }
}
