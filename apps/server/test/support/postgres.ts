import pg from "pg";
import { describe, it } from "vitest";
import { createScratchDatabase, type ScratchDatabase } from "@plant-store/test-support/scratch-postgres";
import { tearDownWith } from "@plant-store/test-support/teardown";

// The PostgreSQL the tests use: libpq's variables where set (turbo passes them), else the local one.
const ADMIN: pg.ClientConfig = {
  host: process.env.PGHOST ?? "127.0.0.1",
  port: Number(process.env.PGPORT ?? 5432),
  user: process.env.PGUSER ?? "postgres",
  database: process.env.PGDATABASE ?? "test",
  connectionTimeoutMillis: 3_000,
};

async function unreachableReason(): Promise<string | undefined> {
  const client = new pg.Client(ADMIN);
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("SELECT 1");
    return undefined;
  } catch (error) {
    return `PostgreSQL unreachable at ${ADMIN.host}:${ADMIN.port}/${ADMIN.database}: ${(error as Error).message}`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const unavailable = await unreachableReason();

/**
 * describe() for suites that need PostgreSQL: skipped with a one-line reason when it is unreachable,
 * except with CI=true, where an unreachable PostgreSQL fails the suite.
 */
export function describePostgres(title: string, body: () => void): void {
  if (unavailable === undefined) {
    describe(title, body);
  } else if (process.env.CI === "true") {
    describe(title, () => {
      it("needs PostgreSQL (CI=true)", () => {
        throw new Error(unavailable);
      });
    });
  } else {
    console.warn(`skipping "${title}": ${unavailable}`);
    describe.skip(`${title} (skipped: ${unavailable})`, body);
  }
}

export interface PlantRow {
  id: bigint;
  name: string;
  tag: string | null;
}

const ADMIN_URL = `postgres://${encodeURIComponent(ADMIN.user!)}@${ADMIN.host}:${ADMIN.port}/${ADMIN.database}`;

/**
 * A fresh database, read through the test's own connections; dropped when the test ends, or after the file when
 * made outside a test (drop() removes it earlier).
 */
export async function createTestDatabase(): Promise<ScratchDatabase> {
  const database = await createScratchDatabase(ADMIN_URL, "plant_store_test");
  tearDownWith(() => database.drop());
  return database;
}

export type TestDatabase = ScratchDatabase;
