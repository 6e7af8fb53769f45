import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { NewPlant } from "@plant-store/contract";
import Database from "better-sqlite3";
import { Kysely, Migrator, SqliteDialect } from "kysely";
import { type CreateOutcome, outcomeAgainst, type PlantStore, toPlant } from "../plant-store.js";
import { sqliteMigrations } from "./migrations.js";

interface PendingCreate {
  plant: NewPlant;
  resolve: (outcome: CreateOutcome) => void;
  reject: (error: unknown) => void;
}

/**
 * PlantStore on a SQLite file with group commit: the creates that arrive in one event-loop turn are
 * written in one transaction and acknowledged after its single durable commit (WAL, synchronous=FULL).
 * One fsync per request would cap throughput near a third of bare Express.
 */
export class SqlitePlantStore implements PlantStore {
  private pending: PendingCreate[] = [];
  private flushScheduled = false;
  private readonly writeBatch: (plants: NewPlant[]) => CreateOutcome[];
  private readonly probe: Database.Statement;

  private constructor(private readonly db: Database.Database) {
    const insert = db.prepare("INSERT INTO plants (id, name, tag) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING");
    const select = db.prepare<[bigint], { name: string; tag: string | null }>(
      "SELECT name, tag FROM plants WHERE id = ?",
    );
    const transaction = db.transaction((plants: NewPlant[]) =>
      plants.map((plant) => {
        const inserted = insert.run(plant.id, plant.name, plant.tag ?? null).changes === 1;
        if (inserted) return outcomeAgainst(plant, undefined);
        const row = select.get(plant.id);
        return outcomeAgainst(plant, row && toPlant(row));
      }),
    );
    // IMMEDIATE takes the write lock up front, so processes sharing the file wait (busy_timeout)
    // instead of failing a lock upgrade halfway through.
    this.writeBatch = (plants) => transaction.immediate(plants);
    // Reading the table (not just SELECT 1) proves the file is still open, readable and migrated.
    this.probe = db.prepare("SELECT 1 FROM plants LIMIT 1");
  }

  /** Opens (creating file and folder if needed) and migrates the database at `filename`. */
  static async open(filename: string): Promise<SqlitePlantStore> {
    if (filename !== ":memory:") mkdirSync(dirname(filename), { recursive: true });
    const db = new Database(filename);
    try {
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = FULL");
      db.pragma("busy_timeout = 5000");
      await migrate(db);
      return new SqlitePlantStore(db);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  create(plant: NewPlant): Promise<CreateOutcome> {
    return new Promise((resolve, reject) => {
      this.pending.push({ plant, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(this.flush);
      }
    });
  }

  private readonly flush = () => {
    this.flushScheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    try {
      const outcomes = this.writeBatch(batch.map((entry) => entry.plant));
      batch.forEach((entry, index) => {
        entry.resolve(outcomes[index]!);
      });
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  };

  async ping(): Promise<void> {
    this.probe.get();
  }

  async close(): Promise<void> {
    this.flush();
    this.db.close();
  }
}

async function migrate(db: Database.Database): Promise<void> {
  // Kysely's SqliteDriver would close the database on destroy(); it is only borrowed for migrating.
  const kysely = new Kysely<unknown>({ dialect: new SqliteDialect({ database: db }) });
  const { error } = await new Migrator({ db: kysely, provider: sqliteMigrations }).migrateToLatest();
  if (error) throw error;
}
