import { fileURLToPath } from "node:url";
import { ConfigError } from "../config.js";
import type { PlantStore } from "./plant-store.js";
import { SqlitePlantStore } from "./sqlite/sqlite-plant-store.js";

/** Opens the store DATABASE_URL names: a file path or file: URL is SQLite. */
export async function openStore(databaseUrl: string): Promise<PlantStore> {
  if (/^postgres(ql)?:\/\//i.test(databaseUrl)) {
    throw new ConfigError("invalid configuration: DATABASE_URL: PostgreSQL is not supported by this build yet");
  }
  const filename = databaseUrl.startsWith("file:") ? fileURLToPath(databaseUrl) : databaseUrl;
  return SqlitePlantStore.open(filename);
}
