import { fileURLToPath } from "node:url";
import type { Config } from "../config.js";
import type { Logger } from "../logger.js";
import type { PlantStore } from "./plant-store.js";
import { classifyPostgresError } from "./postgres/connection-errors.js";
import { StoreUnavailableError } from "./store-unavailable.js";
import { SqlitePlantStore } from "./sqlite/sqlite-plant-store.js";

export type StoreConfig = Pick<
  Config,
  "DATABASE_URL" | "PG_POOL_SIZE" | "PG_STATEMENT_TIMEOUT_MS" | "PG_CONNECT_TIMEOUT_MS"
>;

/** Opens the store DATABASE_URL names: postgres:// or postgresql:// is PostgreSQL, a file path or file: URL is SQLite. */
export async function openStore(config: StoreConfig, logger: Logger): Promise<PlantStore> {
  const databaseUrl = config.DATABASE_URL;
  if (isPostgresUrl(databaseUrl)) {
    // Loaded when needed: after tracing has started, whose pg instrumentation patches pg as it loads.
    const { PostgresPlantStore } = await import("./postgres/postgres-plant-store.js");
    return PostgresPlantStore.open({
      connectionString: databaseUrl,
      poolSize: config.PG_POOL_SIZE,
      statementTimeoutMs: config.PG_STATEMENT_TIMEOUT_MS,
      connectTimeoutMs: config.PG_CONNECT_TIMEOUT_MS,
      logger,
    });
  }
  return SqlitePlantStore.open(sqliteFilename(databaseUrl)!, { logger });
}

/** The SQLite file DATABASE_URL names (a path or a file: URL), or undefined for a PostgreSQL URL. */
export function sqliteFilename(databaseUrl: string): string | undefined {
  if (isPostgresUrl(databaseUrl)) return undefined;
  return databaseUrl.startsWith("file:") ? fileURLToPath(databaseUrl) : databaseUrl;
}

/**
 * Whether a failure to open the store may pass by itself, so opening is retried: PostgreSQL unreachable,
 * refusing connections for now or its migration lock not granted in time; SQLite locked by another process.
 * Anything else (authentication refused, no such database, a malformed URL, a path that cannot be created)
 * is a configuration error that no wait fixes.
 */
export function isTransientOpenError(databaseUrl: string, error: unknown): boolean {
  if (isPostgresUrl(databaseUrl)) return classifyPostgresError(error) instanceof StoreUnavailableError;
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && /^SQLITE_(BUSY|LOCKED)(_|$)/.test(code);
}

/** Which database DATABASE_URL names, as OpenTelemetry's db.system calls it. */
export function databaseSystem(databaseUrl: string): "postgresql" | "sqlite" {
  return isPostgresUrl(databaseUrl) ? "postgresql" : "sqlite";
}

/** DATABASE_URL as it may be logged: a password in a postgres:// URL is replaced. */
export function describeDatabase(databaseUrl: string): string {
  if (!isPostgresUrl(databaseUrl)) return databaseUrl;
  try {
    const url = new URL(databaseUrl);
    if (url.password) url.password = "redacted";
    return url.toString();
  } catch {
    return "postgres://(unparsable URL)";
  }
}

function isPostgresUrl(databaseUrl: string): boolean {
  return /^postgres(ql)?:\/\//i.test(databaseUrl);
}
