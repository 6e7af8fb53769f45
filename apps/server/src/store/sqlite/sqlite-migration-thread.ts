// The short-lived worker thread that migrates a SqlitePlantStore's database as the store opens (started by
// sqlite-plant-store.ts), before the writer thread opens it. Kysely and its Migrator are loaded here only, so
// their code goes with this thread instead of staying in the serving process (docs/performance.md).
import { DatabaseSync } from "node:sqlite";
import { parentPort, workerData } from "node:worker_threads";
import { Kysely, Migrator, SqliteDialect } from "kysely";
import { kyselyDatabaseOver } from "./kysely-database.js";
import { sqliteMigrations } from "./migrations.js";
import { describeFailure, type MigrationMessage, type SqliteThreadSettings } from "./thread-messages.js";

if (parentPort === null) throw new Error("sqlite-migration-thread runs as a worker thread only");
const port = parentPort;
const send = (message: MigrationMessage) => port.postMessage(message);

async function migrate({ filename, busyTimeoutMs }: SqliteThreadSettings): Promise<void> {
  const db = new DatabaseSync(filename, { timeout: busyTimeoutMs });
  try {
    db.exec("PRAGMA journal_mode = WAL");
    const kysely = new Kysely<unknown>({ dialect: new SqliteDialect({ database: kyselyDatabaseOver(db) }) });
    const { error } = await new Migrator({ db: kysely, provider: sqliteMigrations }).migrateToLatest();
    if (error) throw error;
  } finally {
    db.close();
  }
}

// The thread ends by itself after its one message: nothing else keeps its event loop alive.
migrate(workerData as SqliteThreadSettings).then(
  () => send({ type: "migrated" }),
  (error: unknown) => send({ type: "failed", error: describeFailure(error) }),
);
