import { randomBytes } from "node:crypto";
import pg from "pg";

/** A database of its own for one bench run on a PostgreSQL server, dropped when the run ends. */
export interface FreshDatabase {
  /** The URL the Plant Store is started with (DATABASE_URL). */
  url: string;
  /** e.g. "PostgreSQL 15.14 at 127.0.0.1:5432, database plant_store_bench_…", for the report's environment table. */
  description: string;
  drop(): Promise<void>;
}

/**
 * Creates `plant_store_bench_<random>` on the server `adminUrl` names (a role that may create databases), so
 * every run starts on an empty table whatever an earlier run left; the server's start migrates it.
 */
export async function freshPostgresDatabase(adminUrl: string): Promise<FreshDatabase> {
  const name = `plant_store_bench_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(`--postgres-url ${redact(adminUrl)}: cannot connect (${error instanceof Error ? error.message : String(error)})`);
  }
  let version: string;
  try {
    version = String((await admin.query<{ server_version: string }>("SHOW server_version")).rows[0]?.server_version);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    description: `PostgreSQL ${version} at ${url.host}, database ${name}, made for this run and dropped after it (its processes are not pinned, and their CPU is not in (1)'s)`,
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

function redact(text: string): string {
  const url = new URL(text);
  if (url.password !== "") url.password = "***";
  return url.toString();
}
