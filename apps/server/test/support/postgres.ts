import { randomBytes } from "node:crypto";
import pg from "pg";
import { describe, it } from "vitest";

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

const int8AsBigint: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === 20 ? BigInt : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig["getTypeParser"],
};

/** A fresh database for one test file, read through the test's own connections; drop() removes it. */
export async function createTestDatabase() {
  const name = `plant_store_test_${randomBytes(6).toString("hex")}`;
  await withAdmin((admin) => admin.query(`CREATE DATABASE ${name}`));
  const url = `postgres://${encodeURIComponent(ADMIN.user!)}@${ADMIN.host}:${ADMIN.port}/${name}`;
  const pool = new pg.Pool({ connectionString: url, max: 3, types: int8AsBigint });
  pool.on("error", () => undefined);
  return {
    name,
    url,
    host: ADMIN.host!,
    port: ADMIN.port!,
    /** Runs SQL on the test database. */
    query: <Row extends pg.QueryResultRow>(sql: string, params?: unknown[]) =>
      pool.query<Row>(sql, params).then((result) => result.rows),
    /** The rows actually stored, in id order. */
    rows: () => pool.query<PlantRow>("SELECT id, name, tag FROM plants ORDER BY id").then((result) => result.rows),
    async drop() {
      await pool.end();
      await withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

export type TestDatabase = Awaited<ReturnType<typeof createTestDatabase>>;

async function withAdmin<T>(work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client(ADMIN);
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}
