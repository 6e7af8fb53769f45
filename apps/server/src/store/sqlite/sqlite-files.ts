import { closeSync, fsyncSync, openSync, readSync, renameSync, rmSync } from "node:fs";
import { dirname } from "node:path";

const SQLITE_HEADER = "SQLite format 3\u0000";

/** Whether the file at `path` starts with SQLite's header (false for a short or empty file). */
export function hasSqliteHeader(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const header = Buffer.alloc(SQLITE_HEADER.length);
    return readSync(fd, header, 0, header.length, 0) === header.length && header.toString("latin1") === SQLITE_HEADER;
  } finally {
    closeSync(fd);
  }
}

/** The files SQLite keeps beside a database: its WAL, its shared-memory index and a rollback journal. */
export function sidecarFiles(path: string): string[] {
  return [`${path}-wal`, `${path}-shm`, `${path}-journal`];
}

/** Removes a database file and the files SQLite keeps beside it; missing ones are fine. */
export function removeDatabaseFiles(path: string): void {
  for (const file of [path, ...sidecarFiles(path)]) rmSync(file, { force: true });
}

/** Flushes a file, or a folder's entries (after a rename into it), to the disk. */
function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Renames a flushed file into place, then flushes the folder: the new name survives a power cut. */
export function renameDurably(from: string, to: string): void {
  fsyncPath(from);
  renameSync(from, to);
  fsyncPath(dirname(to));
}
