import { resolve } from "node:path";
import { sqliteFilename } from "../store/open-store.js";
import { restoreSnapshot } from "../operations/restore.js";
import { type Command, CommandError, onePositional } from "./command.js";

/** `plant-store restore`: a snapshot `backup` wrote, checked and put in place as the SQLite store. */
export const restore: Command = {
  name: "restore",
  summary: "put a snapshot in place as the SQLite store, with the server stopped",
  usage: ["<file> [--force]"],
  description: [
    "Checks the snapshot (PRAGMA integrity_check, a schema version this server knows), then puts it in place as",
    "the SQLite store in DATABASE_URL in one rename, removing the store's WAL and shared-memory files, and says what",
    "it restored. It refuses a store that is in use (stop the server first) or that holds plants (unless --force).",
    "Whatever it refuses or fails at leaves the store as it was.",
    "",
    "PostgreSQL stores are restored with pg_restore or point-in-time recovery instead (docs/deploying.md).",
  ].join("\n"),
  options: {
    force: { type: "boolean", description: "replace a store that holds plants" },
  },
  async run(args, config) {
    const target = sqliteFilename(config.DATABASE_URL);
    if (target === undefined) {
      throw new CommandError("DATABASE_URL names PostgreSQL: restore it with pg_restore or point-in-time recovery (docs/deploying.md)");
    }
    const snapshot = resolve(onePositional(args, "the snapshot's <file>"));
    const restored = await restoreSnapshot(snapshot, resolve(target), { force: args.values.force === true });
    process.stdout.write(
      `restored ${restored.plants} plants (schema ${restored.schemaVersion}) from ${snapshot} to ${resolve(target)}` +
        `${restored.replacedPlants > 0 ? `, replacing ${restored.replacedPlants} plants` : ""}\n`,
    );
    return 0;
  },
};
