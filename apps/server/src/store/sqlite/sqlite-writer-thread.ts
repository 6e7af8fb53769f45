// The worker thread that owns the SQLite connection of a SqlitePlantStore (started by sqlite-writer.ts).
import { parentPort, workerData } from "node:worker_threads";
import type { NewPlant } from "@plant-store/contract";
import Database from "better-sqlite3";
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

/** The writer's connection and the statements it runs. */
function openConnection({ filename, busyTimeoutMs }: SqliteThreadSettings) {
  const db = new Database(filename);
  db.pragma("synchronous = FULL");
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  // 4 MiB of page cache (better-sqlite3 builds SQLite with 16 MiB): inserts touch few pages, the OS caches
  // the rest of the file, and the process's memory stays flat as the table grows (see docs/benchmarks-soak.md).
  db.pragma("cache_size = -4096");

  const insert = db.prepare<[bigint, string, string | null]>(
    "INSERT INTO plants (id, name, tag) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING",
  );
  const select = db.prepare<[bigint], StoredRow>("SELECT name, tag FROM plants WHERE id = ?");
  const touchProbe = db.prepare<[number]>(
    "INSERT INTO writer_probe (id, pinged_at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET pinged_at = excluded.pinged_at",
  );
  return {
    db,
    // One transaction per batch: null where the plant was inserted, else the row already stored under its
    // id (an earlier create, or an earlier plant of the same batch). A throw rolls the whole batch back.
    writeBatch: db.transaction((plants: NewPlant[]): (StoredRow | null)[] =>
      plants.map((plant) => {
        if (insert.run(plant.id, plant.name, plant.tag ?? null).changes === 1) return null;
        return select.get(plant.id) ?? null;
      }),
    ),
    // A real committed write, not a read: a held lock, a full disk or a read-only file fail it as they would a create.
    writeProbe: db.transaction(() => {
      touchProbe.run(Date.now());
    }),
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
      // IMMEDIATE takes the write lock up front, so processes sharing the file wait (busy_timeout)
      // instead of failing a lock upgrade halfway through.
      send({ type: "reply", seq: request.seq, existing: connection.writeBatch.immediate(request.plants) });
    } else if (request.type === "ping") {
      connection.writeProbe.immediate();
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
