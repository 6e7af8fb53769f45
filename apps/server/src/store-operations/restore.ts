import { copyFileSync, existsSync, mkdirSync, realpathSync, rmSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describeSchema } from "../store/schema-version.js";
import { sqliteMigrations } from "../store/sqlite/migrations.js";
import { hasSqliteHeader, removeDatabaseFiles, renameDurably, sidecarFiles } from "../store/sqlite/sqlite-files.js";
import { appliedMigrations, hasTable, integrityProblems } from "../store/sqlite/store-file.js";
import { StoreLock } from "../store/sqlite/store-lock.js";
import { StoreInUseError } from "../store/store-in-use.js";
import { plantsIn } from "./snapshot.js";
import { SnapshotError } from "../operator-errors.js";

export interface Restored {
  plants: number;
  /** The snapshot's schema, as describeSchema words it. */
  schema: string;
  /** Plants the store held before, when it was replaced with `force`. */
  replacedPlants: number;
  /** There was no store at the target: this one is new (a DATABASE_URL naming another folder than meant shows here). */
  newStore: boolean;
}

/**
 * Puts the snapshot at `snapshot` in place as the SQLite store `target`, with the server stopped. The snapshot
 * is copied beside the target and checked there (PRAGMA integrity_check, a plants table, no migration this
 * server does not know); only then are the target's WAL and shared-memory files removed (a stale WAL would be
 * replayed into the new file) and the copy renamed over it. A target that holds plants is replaced only with
 * `force`. Any refusal or failure leaves the target as it was.
 */
export async function restoreSnapshot(snapshot: string, target: string, { force = false } = {}): Promise<Restored> {
  if (!existsSync(snapshot)) throw new SnapshotError(`there is no file at ${snapshot}`);
  if (existsSync(target) && realpathSync(snapshot) === realpathSync(target)) {
    throw new SnapshotError(`${snapshot} is the store itself (DATABASE_URL): restore a snapshot that backup wrote`);
  }
  // Commits still in a WAL beside the file (a store's own file, not a snapshot) would not be copied with it.
  if ((statSync(`${snapshot}-wal`, { throwIfNoEntry: false })?.size ?? 0) > 0) {
    throw new SnapshotError(
      `${snapshot} has a WAL beside it: snapshot it first (DATABASE_URL=${snapshot} plant-store backup <file>) and restore that`,
    );
  }
  if (!statSync(snapshot).isFile() || !hasSqliteHeader(snapshot))
    throw new SnapshotError(`${snapshot} is not a SQLite database`);
  const newStore = !existsSync(target);
  const folder = dirname(target);
  const createdFolder = !existsSync(folder);
  // Held until the copy is in place: a server started meanwhile waits for it, then opens the restored store.
  const lock = createdFolder ? undefined : lockOut(target);
  const copy = `${target}.restoring`;
  try {
    const replacedPlants = plantsInTarget(target, force);
    mkdirSync(folder, { recursive: true });
    // A WAL or journal left beside the copy by a restore killed mid-check would be replayed into this one.
    removeDatabaseFiles(copy);
    copyFileSync(snapshot, copy);
    const { plants, schema } = await checkSnapshot(copy, snapshot);
    for (const file of [...sidecarFiles(copy), ...sidecarFiles(target)]) rmSync(file, { force: true });
    renameDurably(copy, target);
    return { plants, schema, replacedPlants, newStore };
  } catch (error) {
    removeDatabaseFiles(copy);
    if (createdFolder) rmSync(folder, { recursive: true, force: true });
    throw error;
  } finally {
    lock?.release();
  }
}

/** The store's lock (store-lock.ts), which a running or starting server holds; refused while one does. */
function lockOut(target: string): StoreLock {
  try {
    return StoreLock.acquire(target);
  } catch (error) {
    if (error instanceof StoreInUseError)
      throw new SnapshotError(`the store at ${target} is in use: stop the server first`);
    throw error;
  }
}

/** The plants the target holds (0 when it is missing); refuses a store in use, or one with plants unless `force`. */
function plantsInTarget(target: string, force: boolean): number {
  if (!existsSync(target)) return 0;
  if (!statSync(target).isFile()) throw new SnapshotError(`${target} is not a file`);
  if (!hasSqliteHeader(target)) {
    if (force) return 0;
    throw new SnapshotError(`${target} exists and is not a SQLite database: replace it with --force`);
  }
  const db = new DatabaseSync(target, { timeout: 0 });
  try {
    // An exclusive lock is refused while any other connection (a running server's) has the database open.
    try {
      db.exec("PRAGMA locking_mode = EXCLUSIVE");
      db.exec("BEGIN EXCLUSIVE");
    } catch {
      throw new SnapshotError(`the store at ${target} is in use: stop the server first`);
    }
    const plants = hasTable(db, "plants") ? plantsIn(db, target) : 0;
    db.exec("COMMIT");
    if (plants > 0 && !force)
      throw new SnapshotError(`the store at ${target} holds ${plants} plants: replace them with --force`);
    return plants;
  } finally {
    db.close();
  }
}

/** Checks the copy of a snapshot at `copy` (`source` names it in errors): whole, a Plant Store, a schema this server knows. */
async function checkSnapshot(copy: string, source: string): Promise<{ plants: number; schema: string }> {
  const known = Object.keys(await sqliteMigrations.getMigrations()).sort();
  const db = new DatabaseSync(copy);
  try {
    return readSnapshot(db, source, known);
  } catch (error) {
    if (error instanceof SnapshotError) throw error;
    // SQLite refusing to read it at all (a damaged schema page, a truncated file) is a failed check too.
    throw new SnapshotError(
      `${source} fails the integrity check: ${error instanceof Error ? error.message : String(error)}`,
    );
  } finally {
    db.close();
  }
}

/** Integrity, plants and schema version of the snapshot `db` has open. */
function readSnapshot(db: DatabaseSync, source: string, known: string[]): { plants: number; schema: string } {
  const problems = integrityProblems(db);
  if (problems.length > 0) throw new SnapshotError(`${source} fails the integrity check: ${problems[0]}`);
  const plants = plantsIn(db, source);
  if (!hasTable(db, "kysely_migration"))
    throw new SnapshotError(`${source} is not a Plant Store database: it has no schema version`);
  const applied = appliedMigrations(db);
  const unknown = applied.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new SnapshotError(
      `${source} has schema ${describeSchema(applied, known)}: restore it with the release that wrote it`,
    );
  }
  return { plants, schema: describeSchema(applied, known) };
}
