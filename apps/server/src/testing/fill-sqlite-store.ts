import { DatabaseSync } from "node:sqlite";
import { SqlitePlantStore } from "../store/sqlite/sqlite-plant-store.js";

export interface StoredPlant {
  id: bigint | number;
  name: string;
  tag: string | null;
}

/**
 * A SQLite store holding `plants`, fast: the store's own migrations create the file, then the rows go in through
 * one transaction on a connection of the caller's own and the WAL is checkpointed into the file (100,000 plants
 * in well under a second, where creates over HTTP take minutes). For tests and the bench; the server never fills.
 */
export async function fillSqliteStore(file: string, plants: Iterable<StoredPlant>): Promise<void> {
  await (await SqlitePlantStore.open(file)).close();
  const db = new DatabaseSync(file);
  try {
    const insert = db.prepare("INSERT INTO plants (id, name, tag) VALUES (?, ?, ?)");
    // run() reports the new rowid, which must come back as a bigint above 2^53.
    insert.setReadBigInts(true);
    db.exec("BEGIN");
    for (const plant of plants) insert.run(plant.id, plant.name, plant.tag);
    db.exec("COMMIT");
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
}
