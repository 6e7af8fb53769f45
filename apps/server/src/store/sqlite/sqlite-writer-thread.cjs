// @ts-check
// The worker thread that owns the SQLite connection of a SqlitePlantStore (see sqlite-plant-store.ts).
// Plain CommonJS checked by tsc (checkJs): worker_threads needs a file Node can run as it is, both from
// the built dist/ and from src/ under the test runner, which only transpiles the files it imports.
"use strict";

const { parentPort, workerData } = require("node:worker_threads");
const Database = require("better-sqlite3");

/** @typedef {{ id: bigint, name: string, tag?: string | undefined }} NewPlantRow */
/** @typedef {{ name: string, tag: string | null } | null} ExistingRow */
/**
 * @typedef {{ type: "create", seq: number, plants: NewPlantRow[] }
 *   | { type: "ping", seq: number }
 *   | { type: "close", seq: number }} Request
 */

if (parentPort === null) throw new Error("sqlite-writer-thread.cjs runs as a worker thread only");
const port = parentPort;

/** @type {string} */
const filename = workerData.filename;
const db = new Database(filename);
db.pragma("synchronous = FULL");
db.pragma("busy_timeout = 5000");
// 4 MiB of page cache (better-sqlite3 builds SQLite with 16 MiB): inserts touch few pages, the OS caches
// the rest of the file, and the process's memory stays flat as the table grows (see docs/benchmarks-soak.md).
db.pragma("cache_size = -4096");

const insert = db.prepare("INSERT INTO plants (id, name, tag) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING");
const select = db.prepare("SELECT name, tag FROM plants WHERE id = ?");
// Reading the table (not just SELECT 1) proves the file is still open, readable and migrated.
const probe = db.prepare("SELECT 1 FROM plants LIMIT 1");

// One transaction per batch: null where the plant was inserted, else the row already stored under its id
// (an earlier create, or an earlier plant of the same batch).
const writeBatch = db.transaction(
  /** @param {NewPlantRow[]} plants @returns {ExistingRow[]} */
  (plants) =>
    plants.map((plant) => {
      if (insert.run(plant.id, plant.name, plant.tag ?? null).changes === 1) return null;
      return /** @type {ExistingRow} */ (select.get(plant.id) ?? null);
    }),
);

/** @param {unknown} error */
function describe(error) {
  const { message, code } = /** @type {{ message?: unknown, code?: unknown }} */ (error ?? {});
  return { message: String(message ?? error), code: typeof code === "string" ? code : undefined };
}

port.on("message", (/** @type {Request} */ request) => {
  try {
    if (request.type === "create") {
      // IMMEDIATE takes the write lock up front, so processes sharing the file wait (busy_timeout)
      // instead of failing a lock upgrade halfway through.
      port.postMessage({ seq: request.seq, existing: writeBatch.immediate(request.plants) });
    } else if (request.type === "ping") {
      probe.get();
      port.postMessage({ seq: request.seq });
    } else {
      db.close();
      port.postMessage({ seq: request.seq });
      port.close();
    }
  } catch (error) {
    port.postMessage({ seq: request.seq, error: describe(error) });
  }
});
port.postMessage({ ready: true });
