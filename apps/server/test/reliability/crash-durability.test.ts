import { join } from "node:path";
import { ErrorCode } from "@plant-store/contract";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, describePostgres, type PlantRow, type TestDatabase } from "../support/postgres.js";
import { type ServerProcess, serverProcesses } from "../support/server-process.js";
import { TEST_SECRET, testToken } from "../support/tokens.js";
import { querySqliteFile } from "@plant-store/test-support/sqlite-file";
import { tempDir } from "@plant-store/test-support/temp-dir";

/** How the reliability suites run the built server: on loopback, every response checked against the contract. */
const RELIABILITY_ENV = { HOST: "127.0.0.1", JWT_SECRET: TEST_SECRET, VALIDATE_RESPONSES: "true" };

// Five crashes per run keep `pnpm test` short; RELIABILITY_LONG=1 runs fifty.
const LONG = process.env.RELIABILITY_LONG === "1";
const CRASHES = LONG ? 50 : 5;
const CLIENTS = 32;

interface Plant {
  name: string;
  tag?: string;
}

/** What only direct access to the store can check: its own integrity, and the rows it really holds. */
interface Inspection {
  /** "ok", or what is wrong. */
  integrity: string;
  rows: Map<bigint, Plant>;
}

/**
 * Where the server keeps its plants during the suite. `databaseUrl` is passed to the server as
 * DATABASE_URL, so any store the server supports can be crashed the same way; `inspect` is the check
 * only direct access can make (integrity, and that every stored row is one a client sent).
 */
interface CrashTarget {
  databaseUrl: string;
  inspect?: () => Promise<Inspection>;
}

const plantOf = (row: PlantRow): [bigint, Plant] => [
  row.id,
  row.tag === null ? { name: row.name } : { name: row.name, tag: row.tag },
];

async function sqliteFileTarget(): Promise<CrashTarget> {
  const dir = tempDir("plant-store-crash-");
  const file = join(dir, "plants.db");
  return {
    databaseUrl: file,
    // A second connection while the server runs, as the WAL allows: it sees exactly what was committed.
    inspect: async () =>
      querySqliteFile(file, (db) => {
        const integrity = (db.prepare("PRAGMA integrity_check").all() as { integrity_check: string }[])
          .map((row) => row.integrity_check)
          .join("; ");
        const rows = db.prepare("SELECT id, name, tag FROM plants").all() as unknown as PlantRow[];
        return { integrity, rows: new Map(rows.map(plantOf)) };
      }),
  };
}

/**
 * A fresh PostgreSQL database for the run, dropped afterwards. Only the server process is killed; the
 * database keeps running, so what is checked is that the server acknowledges only committed creates and
 * that its migrations and batched INSERTs leave the table whole across abrupt restarts.
 */
async function postgresTarget(): Promise<CrashTarget> {
  const database = await createTestDatabase();
  // amcheck is PostgreSQL's own corruption check (contrib, shipped with the server), our integrity_check.
  await database.query("CREATE EXTENSION amcheck");
  return {
    databaseUrl: database.url,
    inspect: async () => {
      const problems = await postgresIntegrityProblems(database);
      const rows = await database.rows();
      // count(*) scans the heap; rows() may read through the index: both must see the same rows.
      const count = (await database.query<{ count: bigint }>("SELECT count(*) AS count FROM plants"))[0]?.count;
      if (count !== BigInt(rows.length)) problems.push(`count(*) is ${count} but ${rows.length} rows were read`);
      return { integrity: problems.length === 0 ? "ok" : problems.join("; "), rows: new Map(rows.map(plantOf)) };
    },
  };
}

const PLANTS_COLUMNS = "id bigint NOT NULL, name text NOT NULL, tag text NULL";

/** The plants table as migration 0001 made it, its only migration applied once, heap and index sound. */
async function postgresIntegrityProblems(database: TestDatabase): Promise<string[]> {
  const problems: string[] = [];
  const columns = await database.query<{ column: string }>(
    `SELECT column_name || ' ' || data_type || CASE WHEN is_nullable = 'YES' THEN ' NULL' ELSE ' NOT NULL' END AS column
       FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'plants' ORDER BY ordinal_position`,
  );
  const shape = columns.map((row) => row.column).join(", ");
  if (shape !== PLANTS_COLUMNS) problems.push(`plants columns are "${shape}"`);
  const primaryKey = await database.query<{ definition: string }>(
    "SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conrelid = 'plants'::regclass AND contype = 'p'",
  );
  if (primaryKey.map((row) => row.definition).join() !== "PRIMARY KEY (id)")
    problems.push("plants has lost its PRIMARY KEY (id)");
  const migrations = await database.query<{ name: string }>("SELECT name FROM kysely_migration ORDER BY name");
  if (migrations.map((row) => row.name).join() !== "0001_create_plants") {
    problems.push(`applied migrations are [${migrations.map((row) => row.name).join(", ")}]`);
  }
  // Every heap page of the table is well formed, the primary key's B-tree keeps its invariants, and
  // every row in the heap is found in it (heapallindexed).
  const heap = await database.query<{ blkno: bigint; msg: string }>("SELECT blkno, msg FROM verify_heapam('plants')");
  problems.push(...heap.map((row) => `heap block ${row.blkno}: ${row.msg}`));
  await database.query("SELECT bt_index_check('plants_pkey'::regclass, true)").catch((error: Error) => {
    problems.push(`plants_pkey: ${error.message}`);
  });
  return problems;
}

/**
 * A store named only by its URL (a database the run cannot create or drop): the crash and every check
 * over HTTP run as for the others; store-level inspection is up to the store's own tests.
 */
async function urlTarget(databaseUrl: string): Promise<CrashTarget> {
  return { databaseUrl };
}

const plantFor = (id: bigint): Plant =>
  id % 3n === 0n ? { name: `plant ${id}` } : { name: `plant ${id}`, tag: `tag ${id % 7n}` };

const post = (server: ServerProcess, token: string, id: bigint, plant: Plant) =>
  fetch(`${server.baseUrl}/plants`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: `{"id": ${id}, "name": ${JSON.stringify(plant.name)}${plant.tag === undefined ? "" : `, "tag": ${JSON.stringify(plant.tag)}`}}`,
  });

/** A post retried after Retry-After while admission control refuses it (503 Overloaded), as a client would. */
async function servedPost(server: ServerProcess, token: string, id: bigint, plant: Plant): Promise<Response> {
  for (;;) {
    const res = await post(server, token, id, plant);
    if (res.status !== 503) return res;
    if (((await res.clone().json()) as { error?: number }).error !== ErrorCode.Overloaded) return res;
    await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get("retry-after") ?? 1) * 1000));
  }
}

/** Runs `task` over `items` with `width` in flight. */
async function inParallel<T>(items: T[], width: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await task(items[next++]!);
    }),
  );
}

/**
 * CLIENTS concurrent clients create plants with fresh ids until the server dies under them; returns the
 * ids it acknowledged with 200 (only a complete 200 response counts) and every id that was sent.
 */
async function createUntilKilled(
  server: ServerProcess,
  token: string,
  nextId: () => bigint,
  killAfterAcks: number,
  extraDelayMs: number,
) {
  const acknowledged = new Map<bigint, Plant>();
  const sent = new Map<bigint, Plant>();
  const unexpected: string[] = [];
  let refused = 0;
  let killed: Promise<void> | undefined;
  const killSoon = () => {
    killed ??= new Promise<void>((resolve) => setTimeout(resolve, extraDelayMs)).then(() => server.kill9());
  };
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (server.alive()) {
        const id = nextId();
        const plant = plantFor(id);
        sent.set(id, plant);
        try {
          const res = await post(server, token, id, plant);
          const body = await res.text();
          if (res.status === 200) {
            acknowledged.set(id, plant);
            if (acknowledged.size >= killAfterAcks) killSoon();
          } else if (res.status === 503 && (JSON.parse(body) as { error?: number }).error === ErrorCode.Overloaded) {
            // Admission control refused it on a busy machine: not acknowledged, like any other non-2xx, and not a fault.
            refused++;
          } else {
            // Fails the round below; killing now keeps a misbehaving server from looping until the timeout.
            unexpected.push(`${id}: ${res.status} ${body}`);
            killSoon();
          }
        } catch {
          // The connection died with the server: this create was never acknowledged.
          if (server.alive()) await new Promise((resolve) => setImmediate(resolve));
        }
      }
    }),
  );
  await killed;
  return { acknowledged, sent, unexpected, refused };
}

/** Every acknowledged plant answers its identical replay with 200 and a different body with 409. */
async function verifyOverHttp(
  server: ServerProcess,
  token: string,
  acknowledged: Map<bigint, Plant>,
): Promise<string[]> {
  const problems: string[] = [];
  await inParallel([...acknowledged], 16, async ([id, plant]) => {
    const replay = await servedPost(server, token, id, plant);
    const replayBody = await replay.json();
    if (replay.status !== 200 || JSON.stringify(replayBody) !== JSON.stringify(plant)) {
      problems.push(`replay of ${id}: ${replay.status} ${JSON.stringify(replayBody)}`);
    }
    const other = await servedPost(server, token, id, { name: `${plant.name} (different)` });
    const otherBody = (await other.json()) as { error?: number };
    if (other.status !== 409 || otherBody.error !== 40901) problems.push(`different body for ${id}: ${other.status}`);
  });
  return problems;
}

function describeCrashDurability(
  label: string,
  open: () => Promise<CrashTarget>,
  describeOn: typeof describePostgres = describe,
) {
  describeOn(`crash durability on ${label}`, () => {
    const servers = serverProcesses(RELIABILITY_ENV, { keepOutputChars: 64 * 1024 });
    let target: CrashTarget;
    beforeAll(async () => {
      target = await open();
    });

    it(`after each of ${CRASHES} kill -9 under ${CLIENTS} concurrent clients, every acknowledged plant is there and the store is intact`, {
      timeout: CRASHES * 30_000,
    }, async () => {
      const token = testToken();
      // A random id range per run, so a database that outlives the run (urlTarget) never collides.
      let counter = BigInt(Math.floor(Math.random() * 2 ** 40)) * 1_000_000n;
      const nextId = () => counter++;
      const everAcknowledged = new Map<bigint, Plant>();
      const everSent = new Map<bigint, Plant>();
      let lastRound = new Map<bigint, Plant>();
      let lastSent = new Map<bigint, Plant>();
      // Creates committed but killed before their 200 went out: shows the kill lands inside the cycle.
      let committedUnacknowledged = 0;
      const figures: string[] = [];

      for (let crash = 0; crash <= CRASHES; crash++) {
        const server = await servers.start({ DATABASE_URL: target.databaseUrl });
        // The restart is what recovers the store; only then is anything read back. The store is read
        // before the HTTP replays, which would re-create a lost plant and hide its loss.
        if (target.inspect) {
          const { integrity, rows } = await target.inspect();
          expect(integrity, `integrity_check after crash ${crash}`).toBe("ok");
          const lost = [...everAcknowledged].filter(
            ([id, plant]) => JSON.stringify(rows.get(id)) !== JSON.stringify(plant),
          );
          expect(lost, `acknowledged plants missing or changed after crash ${crash}`).toEqual([]);
          const invented = [...rows].filter(
            ([id, plant]) => JSON.stringify(everSent.get(id)) !== JSON.stringify(plant),
          );
          expect(invented, `rows no client sent after crash ${crash}`).toEqual([]);
          committedUnacknowledged += [...lastSent.keys()].filter((id) => rows.has(id) && !lastRound.has(id)).length;
        }
        expect(await verifyOverHttp(server, token, lastRound), `after crash ${crash}`).toEqual([]);
        if (crash === CRASHES) {
          await server.stop();
          break;
        }
        // Kill once a random number of creates is acknowledged, plus a random delay, so the kill lands
        // at a different point of the group-commit cycle each time; both are printed with the figures.
        const killAfterAcks = 50 + Math.floor(Math.random() * 1500);
        const extraDelayMs = Math.floor(Math.random() * 50);
        const round = await createUntilKilled(server, token, nextId, killAfterAcks, extraDelayMs);
        expect(round.unexpected, `non-200 answers during crash ${crash + 1}`).toEqual([]);
        await server.exited;
        expect(server.child.signalCode).toBe("SIGKILL");
        for (const [id, plant] of round.acknowledged) everAcknowledged.set(id, plant);
        for (const [id, plant] of round.sent) everSent.set(id, plant);
        lastRound = round.acknowledged;
        lastSent = round.sent;
        figures.push(
          `${round.acknowledged.size}/${round.sent.size}${round.refused > 0 ? ` (${round.refused} refused)` : ""} (kill after ${killAfterAcks} acks + ${extraDelayMs} ms)`,
        );
      }
      console.info(
        `crash durability on ${label}: ${CRASHES} kill -9 survived, ${everAcknowledged.size} acknowledged of ${everSent.size} sent, 0 lost${target.inspect ? `, ${committedUnacknowledged} committed but cut off before their 200` : ""}; acknowledged/sent per crash: ${figures.join(", ")}`,
      );
    });
  });
}

describeCrashDurability("a SQLite file", sqliteFileTarget);
describeCrashDurability("a fresh PostgreSQL database", postgresTarget, describePostgres);

// The same suite against a store the run does not own, e.g. a PostgreSQL elsewhere:
// RELIABILITY_DATABASE_URL=postgres://user@host:5432/db (never dropped, only written to).
const otherStore = process.env.RELIABILITY_DATABASE_URL;
if (otherStore)
  describeCrashDurability(`DATABASE_URL ${otherStore.replace(/\/\/[^@/]*@/, "//…@")}`, () => urlTarget(otherStore));
