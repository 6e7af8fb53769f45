import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { ErrorCode, INT64_MAX, INT64_MIN } from "@plant-store/contract";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.js";
import type { PlantStore } from "../src/store/plant-store.js";
import { PostgresPlantStore } from "../src/store/postgres/postgres-plant-store.js";
import { SqlitePlantStore } from "../src/store/sqlite/sqlite-plant-store.js";
import { MemoryPlantStore } from "./support/memory-plant-store.js";
import { createTestDatabase, describePostgres, type PlantRow, type TestDatabase } from "./support/postgres.js";
import { appOver } from "./support/store-app.js";
import { querySqliteFile } from "@plant-store/test-support/sqlite-file";
import { tearDownWith } from "@plant-store/test-support/teardown";
import { tempDir } from "@plant-store/test-support/temp-dir";

/** A store under test, empty at the start of each test, and a way to read what it really holds. */
interface StoreFixture {
  store: PlantStore;
  rows: () => Promise<PlantRow[]>;
}

/** How one kind of store is set up: once per file, then an empty store for every test. */
interface StoreKind {
  setUp(): Promise<void>;
  fresh(): Promise<StoreFixture>;
}

function sqliteKind(): StoreKind {
  let file = "";
  let store: SqlitePlantStore | undefined;
  return {
    // One store (and its threads) for the file, emptied before each test as the PostgreSQL one is.
    async setUp() {
      file = join(tempDir("plant-store-conformance-"), "plants.db");
      const opened = await SqlitePlantStore.open(file);
      tearDownWith(() => opened.close());
      store = opened;
    },
    async fresh() {
      emptySqliteFile(file);
      const rows = async () =>
        querySqliteFile(
          file,
          (db) => db.prepare("SELECT id, name, tag FROM plants ORDER BY id").all() as unknown as PlantRow[],
        );
      return { store: store!, rows };
    },
  };
}

/** Deletes every plant through a second connection, as the WAL allows while the store's writer has the file open. */
function emptySqliteFile(file: string): void {
  const db = new DatabaseSync(file);
  try {
    db.exec("PRAGMA busy_timeout = 5000; DELETE FROM plants");
  } finally {
    db.close();
  }
}

function memoryKind(): StoreKind {
  return {
    async setUp() {},
    async fresh() {
      const store = new MemoryPlantStore();
      return { store, rows: async () => store.rows() };
    },
  };
}

function postgresKind(): StoreKind {
  let database: TestDatabase;
  let store: PostgresPlantStore;
  return {
    async setUp() {
      database = await createTestDatabase();
      store = await PostgresPlantStore.open({
        connectionString: database.url,
        poolSize: 5,
        statementTimeoutMs: 5_000,
        connectTimeoutMs: 2_000,
        logger: createLogger("silent"),
      });
      tearDownWith(() => store.close());
    },
    async fresh() {
      await database.query("TRUNCATE plants");
      return { store, rows: database.rows };
    },
  };
}

/** The semantics every PlantStore must have, checked through the HTTP API and the rows really stored. */
function conformance(kind: StoreKind) {
  let fixture: StoreFixture;
  let t: Awaited<ReturnType<typeof appOver>>;
  beforeAll(() => kind.setUp(), 30_000);
  beforeEach(async () => {
    fixture = await kind.fresh();
    t = await appOver(fixture.store);
  });

  const post = (json: string) => t.post(json);
  const rows = () => fixture.rows();

  it("a new id returns 200 with the Plant and stores one row", async () => {
    const res = await post('{"id": 1, "name": "Monstera", "tag": "tropical"}');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: "Monstera", tag: "tropical" });
    expect(await rows()).toEqual([{ id: 1n, name: "Monstera", tag: "tropical" }]);
  });

  it("repeating a create with identical name and tag returns 200 and writes nothing", async () => {
    expect((await post('{"id": 7, "name": "Cactus", "tag": "desert"}')).status).toBe(200);
    const again = await post('{"tag": "desert", "name": "Cactus", "id": 7}');
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ name: "Cactus", tag: "desert" });
    expect(await rows()).toEqual([{ id: 7n, name: "Cactus", tag: "desert" }]);
  });

  it("the same id with a different name, or a tag added, changed, dropped or emptied returns 409 and keeps the first", async () => {
    await post('{"id": 8, "name": "Palm", "tag": "indoor"}');
    await post('{"id": 9, "name": "Moss"}');
    const conflicts = [
      '{"id": 8, "name": "Rose", "tag": "indoor"}',
      '{"id": 8, "name": "Palm"}',
      '{"id": 8, "name": "Palm", "tag": "outdoor"}',
      '{"id": 9, "name": "Moss", "tag": ""}',
    ];
    for (const body of conflicts) {
      const res = await post(body);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: ErrorCode.PlantIdConflict, message: expect.any(String) });
    }
    expect(await rows()).toEqual([
      { id: 8n, name: "Palm", tag: "indoor" },
      { id: 9n, name: "Moss", tag: null },
    ]);
  });

  it("an empty tag is stored as an empty tag, not as no tag", async () => {
    expect((await post('{"id": 10, "name": "Fern", "tag": ""}')).body).toEqual({ name: "Fern", tag: "" });
    expect((await post('{"id": 10, "name": "Fern", "tag": ""}')).status).toBe(200);
    expect(await rows()).toEqual([{ id: 10n, name: "Fern", tag: "" }]);
  });

  it("ids -2^63, 2^63-1, 0, -1 and 2^53±1 are stored exactly and are distinct plants", async () => {
    const ids = [INT64_MIN, INT64_MAX, 0n, -1n, 9007199254740991n, 9007199254740992n, 9007199254740993n];
    for (const id of ids) expect((await post(`{"id": ${id}, "name": "n${id}"}`)).status).toBe(200);
    expect(await rows()).toEqual(
      [...ids].sort((a, b) => (a < b ? -1 : 1)).map((id) => ({ id, name: `n${id}`, tag: null })),
    );
    expect((await post(`{"id": ${INT64_MAX}, "name": "n${INT64_MAX}"}`)).status).toBe(200);
    expect((await post(`{"id": ${INT64_MIN}, "name": "other"}`)).status).toBe(409);
  });

  it("names and tags keep quotes, backslashes, braces, commas and non-ASCII text exactly", async () => {
    const name = 'a "quoted", {braced} \\ name, NULL';
    const tag = "Ünïcödé 🌵 , } {";
    const res = await post(JSON.stringify({ id: 11, name, tag }));
    expect(res.status).toBe(200);
    expect(await rows()).toEqual([{ id: 11n, name, tag }]);
    expect((await post(JSON.stringify({ id: 11, name, tag }))).status).toBe(200);
  });

  it("a failed request stores nothing: invalid body, NUL in a name, out-of-range id", async () => {
    expect((await post('{"id": 12}')).status).toBe(400);
    expect((await post('{"id": 12, "name": "nul\\u0000inside"}')).status).toBe(400);
    expect((await post('{"id": 9223372036854775808, "name": "too big"}')).status).toBe(400);
    expect(await rows()).toEqual([]);
  });

  it("concurrent identical creates of one id all return 200 and store one row", async () => {
    const responses = await Promise.all(
      Array.from({ length: 40 }, () => post('{"id": 42, "name": "Basil", "tag": "herb"}')),
    );
    expect(responses.map((res) => res.status)).toEqual(Array(40).fill(200));
    expect(await rows()).toEqual([{ id: 42n, name: "Basil", tag: "herb" }]);
  });

  it("concurrent different creates of one id: exactly one 200, every other 409, the winner stored", async () => {
    const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => post(`{"id": 43, "name": "Plant ${i}"}`)));
    const statuses = responses.map((res) => res.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(29);
    const winner = responses.find((res) => res.status === 200)!;
    expect(await rows()).toEqual([{ id: 43n, name: winner.body.name, tag: null }]);
  });

  it("creates issued together are answered one by one: new, replay and conflict of the same id in one batch", async () => {
    const store = fixture.store;
    await store.create({ id: 100n, name: "stored before" });
    // Issued in one event-loop turn, so a group-committing store writes them in one batch.
    const outcomes = await Promise.all([
      store.create({ id: 101n, name: "new" }),
      store.create({ id: 101n, name: "new" }),
      store.create({ id: 101n, name: "different" }),
      store.create({ id: 100n, name: "stored before" }),
      store.create({ id: 100n, name: "different" }),
      store.create({ id: 102n, name: "also new", tag: "t" }),
    ]);
    expect(outcomes).toEqual([
      { kind: "created", plant: { name: "new" } },
      { kind: "replayed", plant: { name: "new" } },
      { kind: "conflict", existing: { name: "new" } },
      { kind: "replayed", plant: { name: "stored before" } },
      { kind: "conflict", existing: { name: "stored before" } },
      { kind: "created", plant: { name: "also new", tag: "t" } },
    ]);
    expect(await rows()).toEqual([
      { id: 100n, name: "stored before", tag: null },
      { id: 101n, name: "new", tag: null },
      { id: 102n, name: "also new", tag: "t" },
    ]);
  });

  it("many concurrent creates of distinct ids are all stored", async () => {
    const responses = await Promise.all(
      Array.from({ length: 150 }, (_, i) => post(`{"id": ${1000 + i}, "name": "Plant ${i}"}`)),
    );
    expect(responses.every((res) => res.status === 200)).toBe(true);
    expect(await rows()).toHaveLength(150);
  });

  it("reports itself ready while the database answers", async () => {
    await expect(fixture.store.ping()).resolves.toBeUndefined();
  });
}

describe("PlantStore conformance: SQLite", () => conformance(sqliteKind()));
describe("PlantStore conformance: in memory (the test store)", () => conformance(memoryKind()));
describePostgres("PlantStore conformance: PostgreSQL", () => conformance(postgresKind()));
