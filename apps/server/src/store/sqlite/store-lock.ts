import { rmSync, type Stats, statSync } from "node:fs";
import { hostname } from "node:os";
import { DatabaseSync } from "node:sqlite";
import { StoreInUseError } from "../store-in-use.js";
import { sqliteResultCodeName } from "./sqlite-result-codes.js";

/** The small database beside a SQLite store whose write lock says which process serves the store. */
function lockFileOf(storeFile: string): string {
  return `${storeFile}-lock`;
}

/**
 * The right to serve a SQLite store, which one process at a time writes: the write lock of a small database beside
 * the store (lockFileOf), taken with BEGIN IMMEDIATE and kept until release(). SQLite's locks are the OS's (fcntl),
 * so the lock goes with the process however it ends, kill -9 included: there is never a stale lock to clear. The
 * store file itself stays unlocked, so the server's own threads and the operator's readers (backup, inspect) use it
 * as before. A write lock, not an exclusive one, so a process that waits can still read who holds it.
 */
export class StoreLock {
  #released = false;
  readonly #db: DatabaseSync;
  readonly #file: string;

  constructor(db: DatabaseSync, file: string) {
    this.#db = db;
    this.#file = file;
  }

  /** Takes the lock of the store at `storeFile`; throws StoreInUseError, at once, while another connection holds it. */
  static acquire(storeFile: string): StoreLock {
    // A holder removes the file as it lets go (release()): a file opened just before that is no longer the one at
    // the path, and its lock guards nothing. The lock is then taken again, on the file that is there now.
    for (let tries = 1; tries <= 3; tries++) {
      const lock = lockOnce(storeFile);
      if (lock !== undefined) return lock;
    }
    return inUse(storeFile, undefined);
  }

  /** Lets go of the lock, removing its file first, while still held, so that no one takes a lock on a removed file. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    rmSync(this.#file, { force: true });
    this.#db.exec("ROLLBACK");
    this.#db.close();
  }
}

/** The lock on the file at the path, or undefined when that file was removed or replaced while it was taken. */
function lockOnce(storeFile: string): StoreLock | undefined {
  const file = lockFileOf(storeFile);
  const before = statSync(file, { throwIfNoEntry: false });
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(file, { timeout: 0 });
    if (!tryBeginImmediate(db)) inUse(storeFile, holderOf(db));
    db.exec("CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL, host TEXT NOT NULL)");
    db.exec("DELETE FROM holder");
    db.prepare("INSERT INTO holder (pid, host) VALUES (?, ?)").run(process.pid, hostname());
    // The commit waits a moment for a process that is reading the pid.
    db.exec("PRAGMA busy_timeout = 1000");
    db.exec("COMMIT");
    db.exec("PRAGMA busy_timeout = 0");
    // Between the commit and this BEGIN, another process may have taken the lock: then it is theirs.
    if (!tryBeginImmediate(db)) inUse(storeFile, holderOf(db));
    if (!sameFile(before, statSync(file, { throwIfNoEntry: false }))) {
      db.close();
      return undefined;
    }
    return new StoreLock(db, file);
  } catch (error) {
    db?.close();
    if (error instanceof StoreInUseError) throw error;
    const message = (error as { message?: unknown }).message ?? error;
    throw Object.assign(new Error(`cannot take its lock file ${file}: ${String(message)}`, { cause: error }), {
      code: sqliteCode(error),
    });
  }
}

/** Who holds the lock, as the holder wrote it. */
interface Holder {
  pid: number;
  host: string;
}

/**
 * Throws StoreInUseError naming the holder when known: by pid, and by host when it is another one (in a cluster each
 * pod has its own pid namespace, where a server is often pid 1, and its host name is the pod's).
 */
function inUse(storeFile: string, holder: Holder | undefined): never {
  const where = holder === undefined || holder.host === hostname() ? "" : ` on ${holder.host}`;
  const who = holder === undefined ? "another process" : `another process (pid ${holder.pid}${where})`;
  throw new StoreInUseError(`SQLite store ${storeFile} is held by ${who}`, holder?.pid);
}

/** BEGIN IMMEDIATE: true once the write lock is held, false when another connection holds it. */
function tryBeginImmediate(db: DatabaseSync): boolean {
  try {
    db.exec("BEGIN IMMEDIATE");
    return true;
  } catch (error) {
    if (sqliteCode(error)?.startsWith("SQLITE_BUSY")) return false;
    throw error;
  }
}

/** Who holds the lock, if it can be read now (a holder may be between taking the lock and writing its name). */
function holderOf(db: DatabaseSync): Holder | undefined {
  try {
    db.exec("PRAGMA busy_timeout = 250");
    const row = db.prepare("SELECT pid, host FROM holder").get() as { pid?: unknown; host?: unknown } | undefined;
    return typeof row?.pid === "number" && typeof row.host === "string" ? { pid: row.pid, host: row.host } : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the file at the path after the lock was taken is the one there before (or the one SQLite created). */
function sameFile(before: Stats | undefined, after: Stats | undefined): boolean {
  if (after === undefined) return false;
  return before === undefined || (before.ino === after.ino && before.dev === after.dev);
}

/** SQLite's name for the result code node:sqlite reports (its `errcode`), e.g. SQLITE_BUSY. */
function sqliteCode(error: unknown): string | undefined {
  const { errcode } = (error ?? {}) as { errcode?: unknown };
  return typeof errcode === "number" ? sqliteResultCodeName(errcode) : undefined;
}
