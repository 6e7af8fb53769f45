// The worker thread that owns the SQLite connection of a SqlitePlantStore (started by sqlite-writer.ts).
import { DatabaseSync } from "node:sqlite";
import { parentPort, workerData } from "node:worker_threads";
import type { NewPlant } from "@plant-store/contract";
import {
  describeFailure,
  type SqliteThreadSettings,
  type StoredRow,
  type WriterMessage,
  type WriterRequest,
} from "./thread-messages.js";

if (parentPort === null) throw new Error("sqlite-writer-thread runs as a worker thread only");
const port = parentPort;
const send = (message: WriterMessage) => port.postMessage(message);

/** Runs `work` in a transaction that takes the write lock up front; a throw rolls it back and is rethrown. */
function inImmediateTransaction<Result>(db: DatabaseSync, work: () => Result): Result {
  // IMMEDIATE takes the write lock at BEGIN, so processes sharing the file wait (busy timeout) instead of
  // failing a lock upgrade halfway through.
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = work();
    db.exec("COMMIT");
    return result;
  } catch (error) {
    // A failed COMMIT (SQLITE_BUSY, SQLITE_FULL) leaves the transaction open: end it, so the next batch starts clean.
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  }
}

/** The writer's connection and the statements it runs. */
function openConnection({ filename, busyTimeoutMs }: SqliteThreadSettings) {
  const db = new DatabaseSync(filename, { timeout: busyTimeoutMs });
  db.exec("PRAGMA synchronous = FULL");

  const insert = db.prepare("INSERT INTO plants (id, name, tag) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING");
  // run() reports the new row's id: as a number, Node 26 throws above 2^53 (and Node 24 rounds it).
  insert.setReadBigInts(true);
  const select = db.prepare("SELECT name, tag FROM plants WHERE id = ?");
  const touchProbe = db.prepare(
    "INSERT INTO writer_probe (id, pinged_at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET pinged_at = excluded.pinged_at",
  );
  return {
    db,
    // One transaction per batch: null where the plant was inserted, else the row already stored under its
    // id (an earlier create, or an earlier plant of the same batch). A throw rolls the whole batch back.
    // Ids go in as bigints, so every int64 is bound exactly.
    writeBatch: (plants: NewPlant[]): (StoredRow | null)[] =>
      inImmediateTransaction(db, () =>
        plants.map((plant) => {
          if (insert.run(plant.id, plant.name, plant.tag ?? null).changes === 1n) return null;
          return (select.get(plant.id) as StoredRow | undefined) ?? null;
        }),
      ),
    // A real committed write, not a read: a held lock, a full disk or a read-only file fail it as they would a create.
    writeProbe: () => inImmediateTransaction(db, () => touchProbe.run(Date.now())),
  };
}

const settings = workerData as SqliteThreadSettings;
let connection = openConnection(settings);
// SQLite opens a file it may not write read-only and never upgrades the connection: after SQLITE_READONLY
// the next request opens the file again, so a database made writable again is written again.
let reopenBeforeNextRequest = false;

port.on("message", (request: WriterRequest) => {
  try {
    if (reopenBeforeNextRequest && request.type !== "close") {
      connection.db.close();
      connection = openConnection(settings);
      reopenBeforeNextRequest = false;
    }
    if (request.type === "create") {
      send({ type: "reply", seq: request.seq, existing: connection.writeBatch(request.plants) });
    } else if (request.type === "ping") {
      connection.writeProbe();
      send({ type: "reply", seq: request.seq });
    } else {
      connection.db.close();
      send({ type: "reply", seq: request.seq });
      port.close();
    }
  } catch (error) {
    const failure = describeFailure(error);
    if (failure.code?.startsWith("SQLITE_READONLY")) reopenBeforeNextRequest = true;
    send({ type: "reply", seq: request.seq, error: failure });
  }
});
send({ type: "ready" });
