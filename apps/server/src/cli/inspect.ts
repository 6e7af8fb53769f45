import { findPlant, summarizeStore } from "../store-operations/inspect.js";
import type { Command } from "./command.js";
import { EXIT_ABSENT } from "./exit-codes.js";
import { formatBytes } from "./progress.js";
import { CommandError } from "../operator-errors.js";

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** `plant-store inspect`: what a store holds, read without writing to it. */
export const inspect: Command = {
  name: "inspect",
  usage: ["[--id <id>]"],
  description: [
    "Reads the store in DATABASE_URL, SQLite or PostgreSQL, without writing to it: SQLite is opened read-only,",
    "PostgreSQL in read-only transactions, and neither is migrated (a store of an older schema says so and stays",
    "so). It may run beside a running server: what it prints is the store as it was at that moment.",
    "",
    "Prints the store's location, its schema version, how many plants it holds and its size on disk. With --id,",
    "prints that plant as one line of JSON, the id exact to the last of its 64 bits, or, when the store holds no",
    `plant with that id, says so on stderr and exits ${EXIT_ABSENT}: a check of a restore that creates nothing.`,
    "Exit 1 with one line on stderr on an error (no store at DATABASE_URL, a database that cannot be reached).",
  ].join("\n"),
  options: {
    id: { type: "string", value: "id", description: "print the plant with this id (a 64-bit integer) as JSON" },
  },
  async run(args, config) {
    if (args.positionals.length > 0)
      throw new CommandError(`unexpected argument ${JSON.stringify(args.positionals[0])}`);
    const database = config.DATABASE_URL;
    const options = { connectTimeoutMs: config.PG_CONNECT_TIMEOUT_MS };
    if (typeof args.values.id === "string") {
      const id = plantId(args.values.id);
      const { location, plant } = await findPlant(database, id, options);
      if (plant === undefined) {
        process.stderr.write(`plant-store inspect: no plant with id ${id} in ${location}\n`);
        return EXIT_ABSENT;
      }
      // JSON.stringify cannot write a bigint; the id goes in as its digits, exact.
      process.stdout.write(`{"id":${id},${JSON.stringify(plant).slice(1)}\n`);
      return 0;
    }
    const summary = await summarizeStore(database, options);
    process.stdout.write(
      [
        `store:  ${summary.location}`,
        `schema: ${summary.schema}`,
        `plants: ${summary.plants}`,
        `size:   ${formatBytes(summary.bytes)}`,
        "",
      ].join("\n"),
    );
    return 0;
  },
};

function plantId(text: string): bigint {
  const id = /^-?\d{1,20}$/.test(text) ? BigInt(text) : undefined;
  if (id === undefined || id < INT64_MIN || id > INT64_MAX) {
    throw new CommandError(
      `--id must be a 64-bit integer (from ${INT64_MIN} to ${INT64_MAX}), not ${JSON.stringify(text)}`,
      { setting: "--id" },
    );
  }
  return id;
}
