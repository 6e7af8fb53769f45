import type { Config } from "../config.js";
import type { Logger } from "../logger.js";
import { describeDatabaseUrl, parseDatabaseUrl } from "./database-url.js";
import type { PlantStore } from "./plant-store.js";
import { classifyPostgresError } from "./postgres/classify-postgres-error.js";
import { StoreUnavailableError } from "./store-unavailable.js";
import { SqlitePlantStore } from "./sqlite/sqlite-plant-store.js";

export type StoreConfig = Pick<
  Config,
  "DATABASE_URL" | "PG_POOL_SIZE" | "PG_STATEMENT_TIMEOUT_MS" | "PG_CONNECT_TIMEOUT_MS"
>;

/**
 * Opens the store DATABASE_URL names (see parseDatabaseUrl): a PostgreSQL database or a SQLite file. A failure no
 * wait fixes (a role refused, no such database, a path that cannot be created) names DATABASE_URL.
 */
export async function openStore(config: StoreConfig, logger: Logger): Promise<PlantStore> {
  const database = parseDatabaseUrl(config.DATABASE_URL);
  try {
    if (database.system === "sqlite") return await SqlitePlantStore.open(database.file, { logger });
    // Loaded when needed: after tracing has started, whose pg instrumentation patches pg as it loads.
    const { PostgresPlantStore } = await import("./postgres/postgres-plant-store.js");
    return await PostgresPlantStore.open({
      connectionString: database.url,
      poolSize: config.PG_POOL_SIZE,
      statementTimeoutMs: config.PG_STATEMENT_TIMEOUT_MS,
      connectTimeoutMs: config.PG_CONNECT_TIMEOUT_MS,
      logger,
    });
  } catch (error) {
    if (database.system === "postgresql") {
      const notFound = hostNotFound(error, database.host);
      if (notFound !== undefined) throw notFound;
    }
    if (isTransientOpenError(config.DATABASE_URL, error)) throw error;
    const { message, code } = error as { message?: string; code?: unknown };
    throw Object.assign(
      new Error(`DATABASE_URL ${describeDatabaseUrl(database)}: ${message || code || String(error)}`, { cause: error }),
      {
        code,
      },
    );
  }
}

/** The SQLite file DATABASE_URL names, by absolute path, or undefined for a PostgreSQL URL. */
export function sqliteFilename(databaseUrl: string): string | undefined {
  const database = parseDatabaseUrl(databaseUrl);
  return database.system === "sqlite" ? database.file : undefined;
}

/**
 * Whether a failure to open the store may pass by itself, so opening is retried: PostgreSQL unreachable,
 * refusing connections for now or its migration lock not granted in time; SQLite locked by another process.
 * Anything else (authentication refused, no such database, a path that cannot be created) is a configuration
 * error that no wait fixes.
 */
export function isTransientOpenError(databaseUrl: string, error: unknown): boolean {
  if (databaseSystem(databaseUrl) === "postgresql")
    return classifyPostgresError(error) instanceof StoreUnavailableError;
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && /^SQLITE_(BUSY|LOCKED)(_|$)/.test(code);
}

/** Which database DATABASE_URL names, as OpenTelemetry's db.system calls it. */
export function databaseSystem(databaseUrl: string): "postgresql" | "sqlite" {
  return parseDatabaseUrl(databaseUrl).system;
}

/** DATABASE_URL as it may be logged: the SQLite file's absolute path, or the URL with its password masked. */
export function describeDatabase(databaseUrl: string): string {
  return describeDatabaseUrl(parseDatabaseUrl(databaseUrl));
}

/**
 * A host name that does not resolve is waited for (DNS can lag behind a new Service in a cluster), but the wait's
 * log lines should say it may be a typo: the error keeps its code, so it stays transient, and names the setting.
 */
function hostNotFound(error: unknown, host: string): Error | undefined {
  let current: unknown = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  if (current instanceof AggregateError) current = current.errors[0];
  const code = (current as { code?: unknown } | undefined)?.code;
  if (code !== "ENOTFOUND" && code !== "EAI_AGAIN") return undefined;
  return Object.assign(
    new Error(
      `host ${JSON.stringify(host)} in DATABASE_URL was not found (${code}): a misspelled name, or DNS not serving it yet`,
    ),
    {
      code,
    },
  );
}
