import { closeSync, existsSync, fdatasyncSync, openSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { backup, DatabaseSync } from "node:sqlite";
import { hasSqliteHeader, removeDatabaseFiles, renameDurably } from "../store/sqlite/sqlite-files.js";
import { countPlants, hasTable } from "../store/sqlite/store-file.js";
import { SnapshotError } from "../operator-errors.js";

/** Pages copied per step of the backup (1 MiB of 4 KiB pages): the progress callback runs between two steps. */
const PAGES_PER_STEP = 256;

export interface SnapshotProgress {
  copiedPages: number;
  totalPages: number;
}

export interface Snapshot {
  /** Plants in the snapshot (counted in the same read transaction the backup copies). */
  plants: number;
  bytes: number;
  milliseconds: number;
}

/**
 * Writes a consistent snapshot of the SQLite store at `storeFile` to `destination` while the server goes on
 * writing, with SQLite's online backup API. The copy runs in one read transaction, held from before its first
 * step until after its last: a write the server commits meanwhile goes to the WAL, unseen by the snapshot, and
 * cannot restart the backup (the backup API restarts a stepped copy when another connection writes between
 * two steps, which a server writing all the time would do forever). In WAL mode that read transaction blocks
 * no writer. The steps run on libuv's thread pool, so `signal` can stop the copy between two of them.
 *
 * The copy goes to `destination`.partial, flushed step by step, and is renamed into place once complete: a
 * crash never leaves a file at `destination` that looks whole.
 */
export async function writeSnapshot(
  storeFile: string,
  destination: string,
  options: { onProgress?: (progress: SnapshotProgress) => void; signal?: AbortSignal } = {},
): Promise<Snapshot> {
  const started = performance.now();
  if (!existsSync(storeFile)) throw new SnapshotError(`there is no SQLite store at ${storeFile}`);
  if (!statSync(storeFile).isFile() || !hasSqliteHeader(storeFile))
    throw new SnapshotError(`${storeFile} is not a SQLite database`);
  if (!existsSync(dirname(destination)))
    throw new SnapshotError(`there is no folder ${dirname(destination)} for the snapshot`);
  const partial = `${destination}.partial`;
  const db = new DatabaseSync(storeFile, { timeout: 5_000 });
  let partialFd: number | undefined;
  try {
    db.exec("BEGIN");
    const plants = plantsIn(db, storeFile);
    await backup(db, partial, {
      rate: PAGES_PER_STEP,
      progress: ({ totalPages, remainingPages }) => {
        options.signal?.throwIfAborted();
        // Each step's pages flushed before the next: on ext3/ext4 (data=ordered) the server's commit fsync
        // would otherwise wait for every dirty page of the snapshot at once.
        partialFd ??= openSync(partial, "r");
        fdatasyncSync(partialFd);
        options.onProgress?.({ copiedPages: totalPages - remainingPages, totalPages });
      },
    });
    options.signal?.throwIfAborted();
    db.exec("COMMIT");
    renameDurably(partial, destination);
    return { plants, bytes: statSync(destination).size, milliseconds: performance.now() - started };
  } catch (error) {
    removeDatabaseFiles(partial);
    throw error;
  } finally {
    if (partialFd !== undefined) closeSync(partialFd);
    db.close();
  }
}

/** The number of plants in the database `db` has open; a database without the plants table is not a store. */
export function plantsIn(db: DatabaseSync, filename: string): number {
  if (!hasTable(db, "plants"))
    throw new SnapshotError(`${filename} is not a Plant Store database: it has no plants table`);
  return countPlants(db);
}
