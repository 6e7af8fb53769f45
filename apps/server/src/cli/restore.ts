import { resolve } from "node:path";
import { restoreSnapshot } from "../store-operations/restore.js";
import { type Command, onePositional } from "./command.js";
import { CommandError } from "../operator-errors.js";

/** `plant-store restore`: a snapshot `backup` wrote, checked and put in place as the SQLite store. */
export const restore: Command = {
  name: "restore",
  usage: ["<file> [--force]"],
  description: [
    "Checks the snapshot (PRAGMA integrity_check, a schema version this server knows), then puts it in place as",
    "the SQLite store in DATABASE_URL in one rename, removing the store's WAL and shared-memory files, and says what",
    "it restored. It refuses a store that is in use (stop the server first) or that holds plants (unless --force).",
    "It refuses the store's own file as the snapshot, and says when there was no store at DATABASE_URL before.",
    "Whatever it refuses or fails at leaves the store as it was. Relative paths are from the working folder",
    "(apps/server for `pnpm restore`, where `pnpm start` runs).",
    "",
    "PostgreSQL stores are restored with pg_restore or point-in-time recovery instead (docs/backup-restore.md).",
  ].join("\n"),
  options: {
    force: { type: "boolean", description: "replace a store that holds plants" },
  },
  async run(args, config) {
    const database = config.DATABASE_URL;
    if (database.system !== "sqlite") {
      throw new CommandError(
        "DATABASE_URL names PostgreSQL: restore it with pg_restore or point-in-time recovery (docs/backup-restore.md)",
        { setting: "DATABASE_URL" },
      );
    }
    const target = database.file;
    const snapshot = resolve(onePositional(args, "the snapshot's <file>"));
    const restored = await restoreSnapshot(snapshot, target, { force: args.values.force === true });
    process.stdout.write(
      `restored ${restored.plants} plants (schema ${restored.schema}) from ${snapshot} to ${target}` +
        `${restored.replacedPlants > 0 ? `, replacing ${restored.replacedPlants} plants` : ""}\n`,
    );
    // A restore into the wrong folder (a relative DATABASE_URL read from another one) is a new store: say so.
    if (restored.newStore)
      process.stdout.write(
        `there was no store at ${target}: this is a new one; check that the server's DATABASE_URL names it\n`,
      );
    return 0;
  },
};
