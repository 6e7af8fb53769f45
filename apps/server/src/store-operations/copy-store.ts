import type { Plant } from "@plant-store/contract";
import { oneLine } from "../one-line.js";
import type { Logger } from "../logger.js";
import type { DatabaseUrl } from "../store/database-url.js";
import { toPlant } from "../store/plant-store.js";
import { PostgresBulkStore } from "../store/postgres/postgres-bulk-store.js";
import { migratePostgres } from "../store/postgres/postgres-plant-store.js";
import type { PlantRow } from "../store/store-reader.js";
import { SqliteStoreReader } from "../store/sqlite/sqlite-reader.js";
import { CopyStoreError } from "../operator-errors.js";

export interface CopyStoreOptions {
  /** The SQLite store's file (the server's DATABASE_URL). */
  sqliteFile: string;
  /** The target, a PostgreSQL database (parseDatabaseUrl). */
  target: Extract<DatabaseUrl, { system: "postgresql" }>;
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

/** Plants the target holds under ids the source does not have: how many, and the lowest ids among them. */
export interface ExtraPlants {
  count: number;
  /** At most EXTRA_IDS_LISTED, in id order. */
  firstIds: bigint[];
}

export interface CopyResult {
  copied: number;
  /** Plants the target already held with the same data (an earlier, interrupted run). */
  alreadyThere: number;
  conflicts: CopyConflict[];
  source: StoreTally;
  target: StoreTally;
  /** Found while the target is verified: each is a reason the two sides differ. */
  extra: ExtraPlants;
}

/** How many of the target's extra ids a result names: enough to look them up, few enough for one line. */
export const EXTRA_IDS_LISTED = 10;

const DEFAULT_BATCH_SIZE = 5_000;
// Two batches in flight: one is parsed and written by PostgreSQL while the other crosses the network.
const CONNECTIONS = 2;
const VERIFY_BATCH_SIZE = 50_000;

/**
 * Copies every plant of a SQLite store into PostgreSQL: migrates the target with the server's own migrations,
 * then, batch by batch in id order, reads what the target already holds in the batch's range, compares it, and
 * inserts the rest, so a rerun after an interruption copies only what is missing. Then it counts and checksums
 * both sides. The source is read in one transaction: one consistent snapshot even while a server writes to it.
 */
export async function copyStore(options: CopyStoreOptions): Promise<CopyResult> {
  // The source first: it is local and cheap to check, and a bad one should not leave a migrated target behind.
  const source = SqliteStoreReader.open(options.sqliteFile);
  try {
    const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    const target = await PostgresBulkStore.open(options.target, {
      readOnly: false,
      connections: CONNECTIONS,
      connectTimeoutMs,
    });
    try {
      await migratePostgres({ connectionString: options.target.url, connectTimeoutMs, logger: options.logger }).catch(
        (error: unknown) => {
          const { host, port, database } = options.target;
          throw new CopyStoreError(`PostgreSQL at ${host}:${port}/${database}: ${oneLine(error)}`);
        },
      );
      source.holdSnapshot();
      const result = await copyRows(source, target, options);
      options.onVerify?.();
      return { ...result, ...(await verifyTarget(target, source)) };
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

async function copyRows(source: SqliteStoreReader, target: PostgresBulkStore, options: CopyStoreOptions) {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const total = await source.countPlants();
  options.onStart?.(total);
  const rows = source.plantsInIdOrder();
  const tally = new Tally();
  const result = { copied: 0, alreadyThere: 0, conflicts: [] as CopyConflict[] };
  let done = 0;
  let failure: { error: unknown } | undefined;
  const inFlight = new Set<Promise<void>>();
  for (;;) {
    // Read while earlier batches are written.
    const batch: PlantRow[] = [];
    while (batch.length < batchSize) {
      const next = rows.next();
      if (next.done) break;
      batch.push(next.value);
      tally.add(next.value);
    }
    while (inFlight.size >= CONNECTIONS && failure === undefined) await Promise.race(inFlight);
    if (failure !== undefined || batch.length === 0) break;
    const written: Promise<void> = copyBatch(target, batch).then(
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

async function copyBatch(target: PostgresBulkStore, batch: PlantRow[]) {
  const outcome = { copied: 0, alreadyThere: 0, conflicts: [] as CopyConflict[] };
  const compare = (rows: PlantRow[], stored: Map<bigint, PlantRow>) => {
    const missing: PlantRow[] = [];
    for (const row of rows) {
      const there = stored.get(row.id);
      if (there === undefined) missing.push(row);
      else if (there.name === row.name && there.tag === row.tag) outcome.alreadyThere++;
      else outcome.conflicts.push({ id: row.id, source: toPlant(row), target: toPlant(there) });
    }
    return missing;
  };
  const byId = (rows: PlantRow[]) => new Map(rows.map((row) => [row.id, row]));

  // The batch is in id order: one range scan finds what an earlier run copied, so a rerun writes nothing.
  const missing = compare(batch, byId(await target.plantsBetween(batch[0]!.id, batch.at(-1)!.id)));
  if (missing.length === 0) return outcome;
  outcome.copied = await target.insertMissing(missing);
  if (outcome.copied === missing.length) return outcome;

  // Another writer stored some of these ids in between (the server should not be running): compare with its rows.
  const stored = byId(await target.plantsWithIds(missing.map((row) => row.id)));
  if (compare(missing, stored).length > 0)
    throw new CopyStoreError("plants went missing from the target while copying");
  // compare() counted the rows this INSERT wrote (equal to the source's by construction) as already there.
  outcome.alreadyThere -= outcome.copied;
  return outcome;
}

/**
 * Reads the target again in id order: its count and checksum, and the plants under ids the source does not hold,
 * found by walking the source's ids (read in the same snapshot as the copy) beside the target's.
 */
async function verifyTarget(
  target: PostgresBulkStore,
  source: SqliteStoreReader,
): Promise<{ target: StoreTally; extra: ExtraPlants }> {
  const tally = new Tally();
  const extra: ExtraPlants = { count: 0, firstIds: [] };
  const sourceRows = source.plantsInIdOrder();
  let inSource = sourceRows.next();
  let last: bigint | undefined;
  for (;;) {
    const page = await target.page(last, VERIFY_BATCH_SIZE);
    for (const row of page) {
      tally.add(row);
      while (!inSource.done && inSource.value.id < row.id) inSource = sourceRows.next();
      if (inSource.done || inSource.value.id !== row.id) {
        extra.count++;
        if (extra.firstIds.length < EXTRA_IDS_LISTED) extra.firstIds.push(row.id);
      }
    }
    if (page.length < VERIFY_BATCH_SIZE) return { target: tally.result(), extra };
    last = page.at(-1)!.id;
  }
}

/**
 * Count and checksum: two 32-bit sums (mod 2^32) of each row's two hash lanes, so the order rows are read in does
 * not matter. The lanes are cyrb53's (a public-domain string hash): plain JavaScript, it costs a third of a
 * node:crypto digest per row, which is a native call for every one of a million rows.
 */
class Tally {
  #plants = 0;
  #low = 0;
  #high = 0;

  add({ id, name, tag }: PlantRow): void {
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
    this.#plants++;
    this.#low = (this.#low + (h1 >>> 0)) >>> 0;
    this.#high = (this.#high + (h2 >>> 0)) >>> 0;
  }

  result(): StoreTally {
    const hex = (lane: number) => lane.toString(16).padStart(8, "0");
    return { plants: this.#plants, checksum: `${hex(this.#high)}${hex(this.#low)}` };
  }
}
