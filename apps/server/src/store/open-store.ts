import type { Logger } from "../logger.js";
import { type DatabaseUrl, describeDatabaseUrl } from "./database-url.js";
import type { PlantStore } from "./plant-store.js";
import { classifyPostgresError } from "./postgres/classify-postgres-error.js";
import type { PostgresStoreOptions } from "./postgres/postgres-plant-store.js";
import { StoreInUseError } from "./store-in-use.js";
import { StoreUnavailableError } from "./store-unavailable.js";
import { SqlitePlantStore } from "./sqlite/sqlite-plant-store.js";

/** Which store to open, and how the PostgreSQL pool connects to it (unused for a SQLite file). */
export interface StoreOptions {
  database: DatabaseUrl;
  postgres: Pick<PostgresStoreOptions, "poolSize" | "statementTimeoutMs" | "connectTimeoutMs">;
}

/**
 * Opens the store DATABASE_URL names (see parseDatabaseUrl): a PostgreSQL database or a SQLite file. A failure no
 * wait fixes (a role refused, no such database, a path that cannot be created) names DATABASE_URL.
 */
export async function openStore({ database, postgres }: StoreOptions, logger: Logger): Promise<PlantStore> {
  try {
    if (database.system === "sqlite") return await SqlitePlantStore.open(database.file, { logger });
    // Loaded when needed: after tracing has started, whose pg instrumentation patches pg as it loads.
    const { PostgresPlantStore } = await import("./postgres/postgres-plant-store.js");
    return await PostgresPlantStore.open({ connectionString: database.url, ...postgres, logger });
  } catch (error) {
    if (database.system === "postgresql") {
      const notFound = hostNotFound(error, database.host);
      if (notFound !== undefined) throw notFound;
    }
    if (isTransientOpenError(database.system, error)) throw error;
    const { message, code } = error as { message?: string; code?: unknown };
    throw Object.assign(
      new Error(`DATABASE_URL ${describeDatabaseUrl(database)}: ${message || code || String(error)}`, { cause: error }),
      {
        code,
      },
    );
  }
}

/**
 * Whether a failure to open the store may pass by itself, so opening is retried: PostgreSQL unreachable,
 * refusing connections for now or its migration lock not granted in time; SQLite locked by another process, or served
 * by another process until that one lets go (StoreInUseError). Anything else (authentication refused, no such
 * database, a path that cannot be created) is a configuration error that no wait fixes.
 */
export function isTransientOpenError(system: DatabaseUrl["system"], error: unknown): boolean {
  if (error instanceof StoreInUseError) return true;
  if (system === "postgresql") return classifyPostgresError(error) instanceof StoreUnavailableError;
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && /^SQLITE_(BUSY|LOCKED)(_|$)/.test(code);
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
