import type { Plant } from "@plant-store/contract";
import pg from "pg";
import { oneLine } from "../../one-line.js";
import type { DatabaseUrl } from "../database-url.js";
import { toPlant } from "../plant-store.js";
import type { PlantRow, StoreReader } from "../store-reader.js";
import { int8AsBigint } from "./postgres-plant-store.js";
import { StoreReadError } from "../../operator-errors.js";

type PostgresUrl = Extract<DatabaseUrl, { system: "postgresql" }>;

const INSERT_BATCH = `
  INSERT INTO plants (id, name, tag)
  SELECT id, name, tag FROM unnest($1::bigint[], $2::text[], $3::text[]) AS input (id, name, tag)
  ON CONFLICT (id) DO NOTHING`;
const SELECT_RANGE = "SELECT id, name, tag FROM plants WHERE id BETWEEN $1 AND $2";
const SELECT_IDS = "SELECT id, name, tag FROM plants WHERE id = ANY($1::bigint[])";
const FIRST_PAGE = "SELECT id, name, tag FROM plants ORDER BY id LIMIT $1";
const NEXT_PAGE = "SELECT id, name, tag FROM plants WHERE id > $1 ORDER BY id LIMIT $2";

/**
 * A PostgreSQL store as operator commands reach it, whole batches at a time rather than one create per request:
 * read-only for `inspect` (every transaction READ ONLY), written by copy-store. It never migrates; every failure
 * is a StoreReadError naming the database without its password.
 */
export class PostgresBulkStore implements StoreReader {
  readonly #pool: pg.Pool;
  readonly #database: PostgresUrl;

  // biome-ignore lint/style/useConsistentMemberAccessibility: ES has no private constructor; open() is the only way in.
  private constructor(pool: pg.Pool, database: PostgresUrl) {
    this.#pool = pool;
    this.#database = database;
  }

  static async open(
    database: PostgresUrl,
    {
      readOnly,
      connections = 1,
      connectTimeoutMs,
    }: { readOnly: boolean; connections?: number; connectTimeoutMs: number },
  ): Promise<PostgresBulkStore> {
    const pool = new pg.Pool({
      connectionString: database.url,
      max: connections,
      connectionTimeoutMillis: connectTimeoutMs,
      types: int8AsBigint,
      ...(readOnly && { options: "-c default_transaction_read_only=on" }),
    });
    // A connection that fails while idle is dropped by the pool; the next query reports it.
    pool.on("error", () => undefined);
    const store = new PostgresBulkStore(pool, database);
    try {
      // One connection opened up front, so a wrong host or login is reported before anything else happens.
      (await pool.connect().catch((error: unknown) => store.#fail(error))).release();
      return store;
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
  }

  /** Whether the plants table exists (a database no server or copy has migrated has none). */
  async hasPlantsTable(): Promise<boolean> {
    const { rows } = await this.#query<{ exists: boolean }>("SELECT to_regclass('plants') IS NOT NULL AS exists");
    return rows[0]!.exists;
  }

  async appliedMigrations(): Promise<string[]> {
    const { rows } = await this.#query<{ exists: boolean }>(
      "SELECT to_regclass('kysely_migration') IS NOT NULL AS exists",
    );
    if (!rows[0]!.exists) return [];
    return (await this.#query<{ name: string }>("SELECT name FROM kysely_migration ORDER BY name")).rows.map(
      (row) => row.name,
    );
  }

  async countPlants(): Promise<number> {
    return Number((await this.#query<{ plants: bigint }>("SELECT count(*) AS plants FROM plants")).rows[0]!.plants);
  }

  async getPlant(id: bigint): Promise<Plant | undefined> {
    const row = (await this.#query<PlantRow>(SELECT_IDS, [[id.toString()]])).rows[0];
    return row === undefined ? undefined : toPlant(row);
  }

  async sizeBytes(): Promise<number> {
    return Number(
      (await this.#query<{ bytes: bigint }>("SELECT pg_total_relation_size('plants') AS bytes")).rows[0]!.bytes,
    );
  }

  /** The plants with ids from `first` to `last`. */
  async plantsBetween(first: bigint, last: bigint): Promise<PlantRow[]> {
    return (await this.#query<PlantRow>(SELECT_RANGE, [first.toString(), last.toString()])).rows;
  }

  async plantsWithIds(ids: bigint[]): Promise<PlantRow[]> {
    return (await this.#query<PlantRow>(SELECT_IDS, [ids.map(String)])).rows;
  }

  /** Up to `limit` plants in id order after id `after` (from the first without it). */
  async page(after: bigint | undefined, limit: number): Promise<PlantRow[]> {
    const page =
      after === undefined
        ? this.#query<PlantRow>(FIRST_PAGE, [limit])
        : this.#query<PlantRow>(NEXT_PAGE, [after.toString(), limit]);
    return (await page).rows;
  }

  /** Inserts the plants whose ids are free, in one statement; resolves with how many it inserted. */
  async insertMissing(rows: PlantRow[]): Promise<number> {
    const inserted = await this.#query(INSERT_BATCH, [
      rows.map((row) => row.id.toString()),
      rows.map((row) => row.name),
      rows.map((row) => row.tag),
    ]);
    return inserted.rowCount ?? 0;
  }

  async close(): Promise<void> {
    await this.#pool.end().catch(() => undefined);
  }

  #query<Row extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<Row>> {
    return this.#pool.query<Row>(text, values).catch((error: unknown) => this.#fail(error));
  }

  /** What PostgreSQL said, in one line, with where it was and without the URL's password. */
  #fail(error: unknown): never {
    const { host, port, database } = this.#database;
    throw new StoreReadError(`PostgreSQL at ${host}:${port}/${database}: ${oneLine(error)}`, { cause: error });
  }
}
