import { randomBytes } from "node:crypto";
import pg from "pg";

/** A database of its own on a PostgreSQL server, for one test file or one bench run; `drop()` removes it. */
export interface ScratchDatabase {
  name: string;
  /** The URL a Plant Store is started with (DATABASE_URL): the admin URL's server and role, this database. */
  url: string;
  host: string;
  port: number;
  /** e.g. "15.14". */
  serverVersion: string;
  /** Runs SQL on the scratch database through a small pool of its own; int8 columns come back as bigint. */
  query: <Row extends pg.QueryResultRow>(sql: string, params?: unknown[]) => Promise<Row[]>;
  /** The plants actually stored, in id order. */
  rows: () => Promise<{ id: bigint; name: string; tag: string | null }[]>;
  drop: () => Promise<void>;
}

/**
 * Creates `<prefix>_<random>` on the server `adminUrl` names (a role that may create databases), so every test
 * file or bench run starts on an empty database whatever an earlier one left; a server's start migrates it.
 * The test and bench side of the store: the server itself never creates databases.
 */
export async function createScratchDatabase(
  adminUrl: string,
  prefix = "plant_store_scratch",
): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(6).toString("hex")}`;
  const serverVersion = await withClient(adminUrl, async (admin) => {
    const version = String(
      (await admin.query<{ server_version: string }>("SHOW server_version")).rows[0]?.server_version,
    );
    await admin.query(`CREATE DATABASE ${name}`);
    return version;
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 3, types: int8AsBigint });
  // A connection the drop ends (WITH FORCE) is no failure of the test's.
  pool.on("error", () => undefined);
  let dropped: Promise<void> | undefined;
  return {
    name,
    url: url.toString(),
    host: url.hostname,
    port: Number(url.port || 5432),
    serverVersion,
    query: (sql, params) => pool.query(sql, params).then((result) => result.rows),
    rows: () => pool.query("SELECT id, name, tag FROM plants ORDER BY id").then((result) => result.rows),
    drop() {
      dropped ??= (async () => {
        await pool.end();
        await withClient(adminUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
      })();
      return dropped;
    },
  };
}

// int8 (OID 20) as bigint, as the server reads it: ids above 2^53 come back exact.
const INT8_OID = 20;
const int8AsBigint: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8_OID ? BigInt : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig["getTypeParser"],
};

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on("error", () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
