import type { NewPlant, Plant } from "@plant-store/contract";
import { Kysely, Migrator, PostgresDialect, sql } from "kysely";
import pg from "pg";
import type { Logger } from "../../logger.js";
import { GroupCommitQueue } from "../group-commit-queue.js";
import { type CreateOutcome, outcomeAgainst, type PlantStore, toPlant } from "../plant-store.js";
import { classifyPostgresError } from "./classify-postgres-error.js";
import { postgresMigrations } from "./migrations.js";

export interface PostgresStoreOptions {
  /** A postgres:// or postgresql:// URL. */
  connectionString: string;
  /** Most connections this instance opens; also the most batches in flight at once. */
  poolSize: number;
  /** The server aborts a statement after this long (statement_timeout); the client gives up 1 s later. */
  statementTimeoutMs: number;
  /** Longest wait to open a connection before a create fails with StoreUnavailableError. */
  connectTimeoutMs: number;
  logger: Logger;
  /** Most creates written by one statement (a benchmark sets 1 to compare with per-request statements). */
  maxBatchSize?: number;
}

const INT8_OID = 20;
// int8 columns arrive as bigint, never as a rounded number or a string.
export const int8AsBigint: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8_OID ? BigInt : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig["getTypeParser"],
};

// One statement inserts the whole batch; ORDER BY id makes every instance take the row locks of
// overlapping batches in the same order, so concurrent batches queue instead of deadlocking.
const INSERT_BATCH = `
  INSERT INTO plants (id, name, tag)
  SELECT id, name, tag FROM unnest($1::bigint[], $2::text[], $3::text[]) AS input (id, name, tag)
  ORDER BY id
  ON CONFLICT (id) DO NOTHING
  RETURNING id`;
// A separate statement, so READ COMMITTED gives it a fresh snapshot that sees the rows another
// transaction committed while the INSERT waited on them.
const SELECT_EXISTING = "SELECT id, name, tag FROM plants WHERE id = ANY($1::bigint[])";

const DEFAULT_MAX_BATCH_SIZE = 500;

/**
 * PlantStore on PostgreSQL with group commit: the creates that arrive while a connection is free are
 * written by one INSERT … ON CONFLICT DO NOTHING (one round trip, one WAL flush) and each is
 * acknowledged after that statement's commit. Up to poolSize batches are in flight at once.
 */
export class PostgresPlantStore implements PlantStore {
  readonly #queue: GroupCommitQueue<NewPlant, CreateOutcome>;
  readonly #pool: pg.Pool;

  // biome-ignore lint/style/useConsistentMemberAccessibility: ES has no private constructor; open() is the only way in.
  private constructor(pool: pg.Pool, options: PostgresStoreOptions) {
    this.#pool = pool;
    this.#queue = new GroupCommitQueue({
      writeBatch: (plants) =>
        this.#writeBatch(plants).catch((error: unknown) => {
          throw classifyPostgresError(error);
        }),
      maxInFlight: options.poolSize,
      maxBatchSize: options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE,
    });
  }

  /** Migrates the database (one instance at a time, under an advisory lock) and opens the pool. */
  static async open(options: PostgresStoreOptions): Promise<PostgresPlantStore> {
    await migratePostgres(options);
    const pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.poolSize,
      connectionTimeoutMillis: options.connectTimeoutMs,
      statement_timeout: options.statementTimeoutMs,
      // statement_timeout cannot fire when the server is unreachable; this bounds the wait on our side.
      query_timeout: options.statementTimeoutMs + 1_000,
      keepAlive: true,
      types: int8AsBigint,
    });
    // A connection that dies while idle is dropped by the pool; without a listener it would crash us.
    pool.on("error", (error) => options.logger.warn({ err: error }, "idle PostgreSQL connection failed"));
    return new PostgresPlantStore(pool, options);
  }

  create(plant: NewPlant): Promise<CreateOutcome> {
    return this.#queue.add(plant);
  }

  async ping(): Promise<void> {
    await this.#pool.query("SELECT 1");
  }

  /** Commits what is pending, then closes the pool. */
  async close(): Promise<void> {
    await this.#queue.drain();
    await this.#pool.end();
  }

  async #writeBatch(plants: NewPlant[]): Promise<CreateOutcome[]> {
    // The first create of an id in the batch is the one inserted; later ones compare against it.
    const firsts = new Map<bigint, NewPlant>();
    for (const plant of plants) if (!firsts.has(plant.id)) firsts.set(plant.id, plant);
    const candidates = [...firsts.values()];

    const inserted = await this.#pool.query<{ id: bigint }>(INSERT_BATCH, [
      candidates.map((plant) => plant.id.toString()),
      candidates.map((plant) => plant.name),
      candidates.map((plant) => plant.tag ?? null),
    ]);
    const created = new Set(inserted.rows.map((row) => row.id));

    const stored = new Map<bigint, Plant>();
    for (const [id, plant] of firsts) if (created.has(id)) stored.set(id, toPlant(plant));
    const taken = [...firsts.keys()].filter((id) => !created.has(id));
    if (taken.length > 0) {
      const existing = await this.#pool.query<{ id: bigint; name: string; tag: string | null }>(SELECT_EXISTING, [
        taken.map(String),
      ]);
      for (const row of existing.rows) stored.set(row.id, toPlant(row));
    }

    return plants.map((plant) => {
      if (firsts.get(plant.id) === plant && created.has(plant.id)) return outcomeAgainst(plant, undefined);
      const existing = stored.get(plant.id);
      // Rows are never deleted, so a conflicting id that is not found means the database lied.
      if (existing === undefined) throw new Error(`plant ${plant.id} conflicted on insert but cannot be read`);
      return outcomeAgainst(plant, existing);
    });
  }
}

/** Applies this build's migrations to the database (also what copy-store runs on its target). */
export async function migratePostgres(
  options: Pick<PostgresStoreOptions, "connectionString" | "connectTimeoutMs" | "logger">,
): Promise<void> {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: 1,
    connectionTimeoutMillis: options.connectTimeoutMs,
  });
  pool.on("error", (error) => options.logger.warn({ err: error }, "PostgreSQL migration connection failed"));
  // Kysely's PostgresAdapter holds pg_advisory_lock while migrating, so instances that start together
  // apply each migration exactly once; the others wait, then find nothing left to do.
  const kysely = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  try {
    const newer = await migrationsNewerThanThisBuild(kysely);
    if (newer.length > 0) {
      // A rolling deploy (or a rollback) runs this build against a schema a newer one migrated.
      // Migrations are kept backward compatible, so serve; Kysely would refuse with "corrupted migrations".
      options.logger.warn({ migrations: newer }, "database schema is newer than this build; not migrating");
      return;
    }
    const { error } = await new Migrator({ db: kysely, provider: postgresMigrations }).migrateToLatest();
    if (error) throw error;
  } finally {
    await kysely.destroy();
  }
}

/** Applied migrations this build does not know, when every migration it does know is applied. */
async function migrationsNewerThanThisBuild(kysely: Kysely<unknown>): Promise<string[]> {
  const { rows } = await sql<{ exists: boolean }>`SELECT to_regclass('kysely_migration') IS NOT NULL AS exists`.execute(
    kysely,
  );
  if (!rows[0]?.exists) return [];
  const applied = (await sql<{ name: string }>`SELECT name FROM kysely_migration`.execute(kysely)).rows.map(
    (row) => row.name,
  );
  const known = Object.keys(await postgresMigrations.getMigrations());
  const unknown = applied.filter((name) => !known.includes(name));
  return known.every((name) => applied.includes(name)) ? unknown : [];
}
