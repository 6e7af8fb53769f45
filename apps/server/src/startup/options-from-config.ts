import type { Config } from "../config.js";
import type { StoreOptions } from "../store/open-store.js";

// The composition root's one translation from the environment's names to each module's own options: below startup/,
// no module knows a variable's name.

/** The store DATABASE_URL names, and the PG_* settings of the server's pool. */
export function storeOptions(config: Config): StoreOptions {
  return {
    database: config.DATABASE_URL,
    postgres: {
      poolSize: config.PG_POOL_SIZE,
      statementTimeoutMs: config.PG_STATEMENT_TIMEOUT_MS,
      connectTimeoutMs: config.PG_CONNECT_TIMEOUT_MS,
    },
  };
}
