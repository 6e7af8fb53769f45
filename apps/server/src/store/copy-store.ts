import { statSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import type { Plant } from "@plant-store/contract";
import pg from "pg";
import type { Logger } from "../logger.js";
import { parseDatabaseUrl } from "./database-url.js";
import { toPlant } from "./plant-store.js";
import { int8AsBigint, migratePostgres } from "./postgres/postgres-plant-store.js";

/** A failure the operator can act on; its message is one line and names no secret. */
export class CopyStoreError extends Error {
  override name = "CopyStoreError";
}

export interface CopyStoreOptions {
  /** The SQLite store's file (the server's DATABASE_URL). */
  sqliteFile: string;
  /** The target, a postgres:// or postgresql:// URL. */
  postgresUrl: string;
  /** Where the migration's warnings go. */
  logger: Logger;
  connectTimeoutMs?: number;
  /** Plants per INSERT. */
  batchSize?: number;
  /** Called once both sides are open and the target migrated, with how many plants the source holds. */
  onStart?: (plants: number) => void;
  /** Called after each batch: plants handled so far (copied, already there or in conflict) of `total`. */
  onProgress?: (done: number, total: number) => void;
  /** Called once the copy is done and both sides are being read again to verify them. */
  onVerify?: () => void;
}

/** How many plants a store holds, and a checksum of them that does not depend on their order (see Tally). */
export interface StoreTally {
  plants: number;
  checksum: string;
}

/** An id the target already holds with other data: the target keeps its own. */
export interface CopyConflict {
  id: bigint;
  source: Plant;
  target: Plant;
}

export interface CopyResult {
  copied: number;
  /** Plants the target already held with the same data (an earlier, interrupted run). */
  alreadyThere: number;
  conflicts: CopyConflict[];
  source: StoreTally;
  target: StoreTally;
}

interface Row {
  id: bigint;
  name: string;
  tag: string | null;
}

const DEFAULT_BATCH_SIZE = 5_000;
// Two batches in flight: one is parsed and written by PostgreSQL while the other crosses the network.
const CONNECTIONS = 2;
const VERIFY_BATCH_SIZE = 50_000;

const INSERT_BATCH = `
  INSERT INTO plants (id, name, tag)
  SELECT id, name, tag FROM unnest($1::bigint[], $2::text[], $3::text[]) AS input (id, name, tag)
  ON CONFLICT (id) DO NOTHING`;
const SELECT_RANGE = "SELECT id, name, tag FROM plants WHERE id BETWEEN $1 AND $2";
const SELECT_IDS = "SELECT id, name, tag FROM plants WHERE id = ANY($1::bigint[])";
const FIRST_PAGE = "SELECT id, name, tag FROM plants ORDER BY id LIMIT $1";
const NEXT_PAGE = "SELECT id, name, tag FROM plants WHERE id > $1 ORDER BY id LIMIT $2";

/**
 * Copies every plant of a SQLite store into PostgreSQL: migrates the target with the server's own migrations,
 * then, batch by batch in id order, reads what the target already holds in the batch's range, compares it, and
 * inserts the rest, so a rerun after an interruption copies only what is missing. Then it counts and checksums
 * both sides. The source is read in one transaction: one consistent snapshot even while a server writes to it.
 */
export async function copyStore(options: CopyStoreOptions): Promise<CopyResult> {
  // The source first: it is local and cheap to check, and a bad one should not leave a migrated target behind.
  const source = openSource(options.sqliteFile);
  try {
    const target = await connectTarget(options);
    try {
      await migratePostgres({
        connectionString: options.postgresUrl,
        connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
        logger: options.logger,
      }).catch((error: unknown) => {
        throw targetFailure(error, options.postgresUrl);
      });
      source.exec("BEGIN");
      const result = await copyRows(source, target, options);
      options.onVerify?.();
      return { ...result, target: await tallyTarget(target, options.postgresUrl) };
    } finally {
      await target.end().catch(() => undefined);
    }
  } finally {
    source.close();
  }
}

async function copyRows(source: DatabaseSync, target: pg.Pool, options: CopyStoreOptions) {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const total = Number((source.prepare("SELECT count(*) AS plants FROM plants").get() as { plants: bigint }).plants);
  options.onStart?.(total);
  const rows = source.prepare("SELECT id, name, tag FROM plants ORDER BY id").iterate() as Iterator<Row>;
  const tally = new Tally();
  const result = { copied: 0, alreadyThere: 0, conflicts: [] as CopyConflict[] };
  let done = 0;
  let failure: { error: unknown } | undefined;
  const inFlight = new Set<Promise<void>>();
  for (;;) {
    // Read while earlier batches are written.
    const batch: Row[] = [];
    while (batch.length < batchSize) {
      const next = rows.next();
      if (next.done) break;
      batch.push(next.value);
      tally.add(next.value);
    }
    while (inFlight.size >= CONNECTIONS && failure === undefined) await Promise.race(inFlight);
    if (failure !== undefined || batch.length === 0) break;
    const written: Promise<void> = copyBatch(target, batch, options.postgresUrl).then(
      (outcome) => {
        inFlight.delete(written);
        result.copied += outcome.copied;
        result.alreadyThere += outcome.alreadyThere;
        result.conflicts.push(...outcome.conflicts);
        done += batch.length;
        options.onProgress?.(done, total);
      },
      (error: unknown) => {
        inFlight.delete(written);
        failure ??= { error };
      },
    );
    inFlight.add(written);
  }
  await Promise.all(inFlight);
  if (failure !== undefined) throw failure.error;
  if (total === 0) options.onProgress?.(0, 0);
  return { ...result, source: tally.result() };
}

async function copyBatch(target: pg.Pool, batch: Row[], url: string) {
  const query = <Result extends pg.QueryResultRow>(text: string, values: unknown[]) =>
    target.query<Result>(text, values).catch((error: unknown) => {
      throw targetFailure(error, url);
    });
  const outcome = { copied: 0, alreadyThere: 0, conflicts: [] as CopyConflict[] };
  const compare = (rows: Row[], stored: Map<bigint, Row>) => {
    const missing: Row[] = [];
    for (const row of rows) {
      const there = stored.get(row.id);
      if (there === undefined) missing.push(row);
      else if (there.name === row.name && there.tag === row.tag) outcome.alreadyThere++;
      else outcome.conflicts.push({ id: row.id, source: toPlant(row), target: toPlant(there) });
    }
    return missing;
  };
  const byId = (rows: Row[]) => new Map(rows.map((row) => [row.id, row]));

  // The batch is in id order: one range scan finds what an earlier run copied, so a rerun writes nothing.
  const range = [batch[0]!.id.toString(), batch.at(-1)!.id.toString()];
  const missing = compare(batch, byId((await query<Row>(SELECT_RANGE, range)).rows));
  if (missing.length === 0) return outcome;
  const ids = missing.map((row) => row.id.toString());
  const inserted = await query(INSERT_BATCH, [ids, missing.map((row) => row.name), missing.map((row) => row.tag)]);
  outcome.copied = inserted.rowCount ?? 0;
  if (outcome.copied === missing.length) return outcome;

  // Another writer stored some of these ids in between (the server should not be running): compare with its rows.
  const stored = byId((await query<Row>(SELECT_IDS, [ids])).rows);
  if (compare(missing, stored).length > 0) throw new CopyStoreError("plants went missing from the target while copying");
  // compare() counted the rows this INSERT wrote (equal to the source's by construction) as already there.
  outcome.alreadyThere -= outcome.copied;
  return outcome;
}

async function tallyTarget(target: pg.Pool, url: string): Promise<StoreTally> {
  const tally = new Tally();
  let last: bigint | undefined;
  for (;;) {
    const page = await target
      .query<Row>(last === undefined ? FIRST_PAGE : NEXT_PAGE, last === undefined ? [VERIFY_BATCH_SIZE] : [last.toString(), VERIFY_BATCH_SIZE])
      .catch((error: unknown) => {
        throw targetFailure(error, url);
      });
    for (const row of page.rows) tally.add(row);
    if (page.rows.length < VERIFY_BATCH_SIZE) return tally.result();
    last = page.rows.at(-1)!.id;
  }
}

/**
 * Count and checksum: two 32-bit sums (mod 2^32) of each row's two hash lanes, so the order rows are read in does
 * not matter. The lanes are cyrb53's (a public-domain string hash): plain JavaScript, it costs a third of a
 * node:crypto digest per row, which is a native call for every one of a million rows.
 */
class Tally {
  private plants = 0;
  private low = 0;
  private high = 0;

  add({ id, name, tag }: Row): void {
    // Lengths first, so no two rows encode alike; a missing tag is not "".
    const text = `${id}:${name.length}:${name}:${tag === null ? "-" : `${tag.length}:${tag}`}`;
    let h1 = 0xdeadbeef;
    let h2 = 0x41c6ce57;
    for (let i = 0; i < text.length; i++) {
      const char = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ char, 2654435761);
      h2 = Math.imul(h2 ^ char, 1597334677);
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
    h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
    h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    this.plants++;
    this.low = (this.low + (h1 >>> 0)) >>> 0;
    this.high = (this.high + (h2 >>> 0)) >>> 0;
  }

  result(): StoreTally {
    const hex = (lane: number) => lane.toString(16).padStart(8, "0");
    return { plants: this.plants, checksum: `${hex(this.high)}${hex(this.low)}` };
  }
}

function openSource(file: string): DatabaseSync {
  if (!statSync(file, { throwIfNoEntry: false })?.isFile()) throw new CopyStoreError(`no SQLite store at ${file} (DATABASE_URL)`);
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(file, { readOnly: true, readBigInts: true });
    const plants = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'plants'").get();
    if (plants === undefined) throw new CopyStoreError(`${file} is a SQLite database without a plants table, not a Plant Store`);
    return db;
  } catch (error) {
    db?.close();
    if (error instanceof CopyStoreError) throw error;
    throw new CopyStoreError(`${file} cannot be read as a SQLite store: ${oneLine(error)}`);
  }
}

async function connectTarget(options: CopyStoreOptions): Promise<pg.Pool> {
  const url = options.postgresUrl;
  if (parseDatabaseUrl(url).system !== "postgresql") throw new CopyStoreError("the target must be a postgres:// or postgresql:// URL");
  const pool = new pg.Pool({
    connectionString: url,
    max: CONNECTIONS,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    types: int8AsBigint,
  });
  // A connection that fails while idle is dropped by the pool; the next query reports it.
  pool.on("error", () => undefined);
  try {
    // One connection opened up front, so a wrong host or login is reported before anything else happens.
    (await pool.connect()).release();
    return pool;
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw targetFailure(error, url);
  }
}

/** What the target said, in one line, with the URL's password left out. */
function targetFailure(error: unknown, url: string): Error {
  if (error instanceof CopyStoreError) return error;
  const { hostname, port, pathname } = new URL(url);
  return new CopyStoreError(`PostgreSQL at ${hostname}:${port || 5432}${pathname}: ${oneLine(error)}`);
}

function oneLine(error: unknown): string {
  const { message, code } = error as { message?: string; code?: string };
  // Connecting to a name with several addresses fails with an AggregateError, whose message is empty.
  const text = message || code || String(error);
  return text.replace(/\s*\n\s*/g, " ");
}
