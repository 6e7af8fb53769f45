import { fileURLToPath } from "node:url";
import type { Config } from "../config.js";
import type { Logger } from "../logger.js";
import type { PlantStore } from "./plant-store.js";
import { PostgresPlantStore } from "./postgres/postgres-plant-store.js";
import { SqlitePlantStore } from "./sqlite/sqlite-plant-store.js";

export type StoreConfig = Pick<
  Config,
  "DATABASE_URL" | "PG_POOL_SIZE" | "PG_STATEMENT_TIMEOUT_MS" | "PG_CONNECT_TIMEOUT_MS"
>;

/** Opens the store DATABASE_URL names: postgres:// or postgresql:// is PostgreSQL, a file path or file: URL is SQLite. */
export async function openStore(config: StoreConfig, logger: Logger): Promise<PlantStore> {
  const databaseUrl = config.DATABASE_URL;
  if (/^postgres(ql)?:\/\//i.test(databaseUrl)) {
    return PostgresPlantStore.open({
      connectionString: databaseUrl,
      poolSize: config.PG_POOL_SIZE,
      statementTimeoutMs: config.PG_STATEMENT_TIMEOUT_MS,
      connectTimeoutMs: config.PG_CONNECT_TIMEOUT_MS,
      logger,
    });
  }
  const filename = databaseUrl.startsWith("file:") ? fileURLToPath(databaseUrl) : databaseUrl;
  return SqlitePlantStore.open(filename);
}

/** DATABASE_URL as it may be logged: a password in a postgres:// URL is replaced. */
export function describeDatabase(databaseUrl: string): string {
  if (!/^postgres(ql)?:\/\//i.test(databaseUrl)) return databaseUrl;
  try {
    const url = new URL(databaseUrl);
    if (url.password) url.password = "redacted";
    return url.toString();
  } catch {
    return "postgres://(unparsable URL)";
  }
}
