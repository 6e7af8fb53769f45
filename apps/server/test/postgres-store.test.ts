import { ErrorCode } from "@plant-store/contract";
import { join } from "node:path";
import pg from "pg";
import { beforeEach, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { createLogger } from "../src/logger.js";
import { openStore } from "../src/store/open-store.js";
import { describeDatabaseUrl, parseDatabaseUrl } from "../src/store/database-url.js";
import { storeOptions } from "../src/startup/options-from-config.js";
import { PostgresPlantStore, type PostgresStoreOptions } from "../src/store/postgres/postgres-plant-store.js";
import { StoreUnavailableError } from "../src/store/store-unavailable.js";
import { createTestDatabase, describePostgres, type TestDatabase } from "./support/postgres.js";
import { appOver } from "./support/store-app.js";
import { tearDownWith } from "@plant-store/test-support/teardown";
import { ConfigError } from "../src/operator-errors.js";

// Kysely's PostgresAdapter takes this session advisory lock around every migration run.
const KYSELY_MIGRATION_LOCK = "3853314791062309107";

describePostgres("the PostgreSQL store", () => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase();
  });

  const options = (overrides: Partial<PostgresStoreOptions> = {}): PostgresStoreOptions => ({
    connectionString: database.url,
    poolSize: 3,
    statementTimeoutMs: 5_000,
    connectTimeoutMs: 2_000,
    logger: createLogger("silent"),
    ...overrides,
  });
  const open = async (overrides: Partial<PostgresStoreOptions> = {}) => {
    const store = await PostgresPlantStore.open(options(overrides));
    tearDownWith(() => store.close());
    return store;
  };
  const connect = async () => {
    const client = new pg.Client({ connectionString: database.url });
    tearDownWith(() => client.end().catch(() => undefined));
    await client.connect();
    return client;
  };

  it("DATABASE_URL=postgres://… opens the PostgreSQL store, with the pool settings from the environment", async () => {
    const config = loadConfig({ DATABASE_URL: database.url, PG_POOL_SIZE: "4", PG_STATEMENT_TIMEOUT_MS: "1500" });
    expect(config).toMatchObject({ PG_POOL_SIZE: 4, PG_STATEMENT_TIMEOUT_MS: 1500, PG_CONNECT_TIMEOUT_MS: 2000 });
    const store = await openStore(storeOptions(config), createLogger("silent"));
    tearDownWith(() => store.close());
    expect(store).toBeInstanceOf(PostgresPlantStore);
    expect(await store.create({ id: 1n, name: "via openStore" })).toEqual({
      kind: "created",
      plant: { name: "via openStore" },
    });
  });

  it("a pool size or timeout that is not a positive integer stops the configuration, naming the variable", () => {
    expect(() => loadConfig({ PG_POOL_SIZE: "0" })).toThrow(ConfigError);
    expect(() => loadConfig({ PG_POOL_SIZE: "0" })).toThrow(/PG_POOL_SIZE/);
    expect(() => loadConfig({ PG_STATEMENT_TIMEOUT_MS: "soon" })).toThrow(/PG_STATEMENT_TIMEOUT_MS/);
    expect(() => loadConfig({ PG_CONNECT_TIMEOUT_MS: "-1" })).toThrow(/PG_CONNECT_TIMEOUT_MS/);
  });

  it("the logged DATABASE_URL never shows the password", () => {
    expect(describeDatabaseUrl(parseDatabaseUrl("postgres://app:s3cret@db.internal:5432/plants"))).toBe(
      "postgres://app:redacted@db.internal:5432/plants",
    );
    expect(describeDatabaseUrl(parseDatabaseUrl("./data/plants.db"))).toBe(join(process.cwd(), "data/plants.db"));
  });

  it("stores ids in a BIGINT column", async () => {
    await open();
    const [column] = await database.query<{ data_type: string }>(
      "SELECT data_type FROM information_schema.columns WHERE table_name = 'plants' AND column_name = 'id'",
    );
    expect(column).toEqual({ data_type: "bigint" });
  });

  it("six instances starting at once on an empty database all start, and the migration is applied once", async () => {
    const instances = await Promise.all(Array.from({ length: 6 }, () => open()));
    expect(await database.query("SELECT name FROM kysely_migration")).toEqual([{ name: "0001_create_plants" }]);
    const results = await Promise.all(instances.map((store, i) => store.create({ id: 5n, name: `instance ${i}` })));
    expect(results.filter((result) => result.kind === "created")).toHaveLength(1);
    expect(await database.rows()).toHaveLength(1);
  });

  it("an instance of an older build starts on a database a newer build migrated (rolling deploy, rollback)", async () => {
    await (await PostgresPlantStore.open(options())).close();
    await database.query(
      "INSERT INTO kysely_migration (name, timestamp) VALUES ('9999_from_a_newer_build', now()::text)",
    );
    const older = await open();
    expect(await older.create({ id: 3n, name: "served by the older build" })).toMatchObject({ kind: "created" });
  });

  it("migrations wait for the advisory lock another instance holds, then run", async () => {
    const holder = await connect();
    await holder.query(`SELECT pg_advisory_lock(${KYSELY_MIGRATION_LOCK})`);
    const opening = open();
    // The opening instance queues on the lock: pg_locks shows its request, not granted.
    const deadline = Date.now() + 5_000;
    for (let waiting = false; !waiting; ) {
      if (Date.now() > deadline) throw new Error("the opening instance never queued on the migration lock");
      const [row] = await database.query<{ waiting: boolean }>(
        "SELECT count(*) > 0 AS waiting FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
      );
      waiting = row!.waiting;
    }
    expect(await database.query("SELECT to_regclass('plants') AS plants")).toEqual([{ plants: null }]);
    await holder.query(`SELECT pg_advisory_unlock(${KYSELY_MIGRATION_LOCK})`);
    const store = await opening;
    expect(await store.create({ id: 1n, name: "after the lock" })).toMatchObject({ kind: "created" });
  });

  it("a create stuck behind another transaction's lock fails within the statement timeout as 503 StoreUnavailable, storing nothing", async () => {
    const store = await open({ statementTimeoutMs: 300 });
    const blocker = await connect();
    await blocker.query("BEGIN");
    await blocker.query("INSERT INTO plants (id, name) VALUES (77, 'uncommitted')");

    await expect(store.create({ id: 77n, name: "waits" })).rejects.toBeInstanceOf(StoreUnavailableError);
    const t = await appOver(store);
    const res = await t.post('{"id": 77, "name": "waits"}');
    expect(res.status).toBe(503);
    expect(res.headers["retry-after"]).toBe("1");
    expect(res.body).toEqual({
      error: ErrorCode.StoreUnavailable,
      message: "the store is unavailable; retry the same request",
    });

    await blocker.query("ROLLBACK");
    expect(await database.rows()).toEqual([]);
    expect(await store.create({ id: 77n, name: "waits" })).toMatchObject({ kind: "created" });
  });

  it("a NUL in a name is refused as 400 ValidationFailed before it reaches PostgreSQL", async () => {
    const t = await appOver(await open());
    const res = await t.post('{"id": 1, "name": "a\\u0000b"}');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: ErrorCode.ValidationFailed,
      message: "name: must not contain the NUL character (U+0000)",
    });
  });
});
