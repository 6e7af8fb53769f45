#!/usr/bin/env node
// `plant-store`, the server package's bin: the operations a server team runs, with the server's environment.
import { parseArgs } from "node:util";
import type { Command, CommandOption } from "./command.js";
import { EXIT_ABSENT, EXIT_DIFFERENT } from "./exit-codes.js";
import { oneLine } from "../one-line.js";

interface CommandEntry {
  name: string;
  /** One line for `plant-store --help`. */
  summary: string;
  load: () => Promise<Command>;
}

// A command's module (and the store, SQLite and PostgreSQL code it imports) is loaded only when that command runs:
// loading every one made each start, `--help` included, take twice as long.
const COMMANDS: CommandEntry[] = [
  {
    name: "backup",
    summary: "write a consistent snapshot of the SQLite store while the server runs (once, or every N minutes)",
    load: async () => (await import("./backup.js")).backup,
  },
  {
    name: "restore",
    summary: "put a snapshot in place as the SQLite store, with the server stopped",
    load: async () => (await import("./restore.js")).restore,
  },
  {
    name: "copy-store",
    summary: "copy every plant from the SQLite store to PostgreSQL, then verify both sides",
    load: async () => (await import("./copy-store.js")).copyStoreCommand,
  },
  {
    name: "inspect",
    summary: "print the store's location, schema version, plant count and size, or one plant (--id), read-only",
    load: async () => (await import("./inspect.js")).inspect,
  },
  {
    name: "issue-token",
    summary: "print a bearer token signed with JWT_SECRET (development, scripts)",
    load: async () => (await import("./issue-token.js")).issueToken,
  },
];

function globalHelp(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length));
  return [
    "Usage: plant-store <command> [options]",
    "",
    "The Plant Store server's operations. Each reads the server's environment (DATABASE_URL, JWT_SECRET, ...).",
    "",
    "Commands:",
    ...COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    "",
    "Run `plant-store <command> --help` for a command's options and exit codes. Exit 0 on success, 1 with one line",
    `on stderr on an error, ${EXIT_DIFFERENT} from copy-store when the copy ran but the two stores differ (the lines before say how),`,
    `${EXIT_ABSENT} from inspect --id when the store holds no plant with that id.`,
    "",
  ].join("\n");
}

function commandHelp(command: Command): string {
  const flag = (name: string, option: CommandOption) =>
    `${option.short ? `-${option.short}, ` : ""}--${name}${option.value ? ` <${option.value}>` : ""}`;
  const options = {
    ...command.options,
    help: { type: "boolean", short: "h", description: "print this help" } satisfies CommandOption,
  };
  const flags = Object.entries(options).map(([name, option]) => [flag(name, option), option.description] as const);
  const width = Math.max(...flags.map(([text]) => text.length));
  return [
    ...command.usage.map((usage, index) => `${index === 0 ? "Usage:" : "      "} plant-store ${command.name} ${usage}`),
    "",
    command.description,
    "",
    "Options:",
    ...flags.map(([text, description]) => `  ${text.padEnd(width)}  ${description}`),
    "",
  ].join("\n");
}

async function run(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(globalHelp());
    return name === undefined ? 1 : 0;
  }
  const entry = COMMANDS.find((candidate) => candidate.name === name);
  if (entry === undefined)
    throw new Error(`unknown command ${JSON.stringify(name)}: run plant-store --help for the list`);
  const command = await entry.load();
  const options = Object.fromEntries(
    Object.entries(command.options).map(([option, { type, short }]) => [option, { type, ...(short && { short }) }]),
  );
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    // parseArgs' advice on positionals that start with "-" is for programs, not for an operator's line.
    const message = (error instanceof Error ? error.message : String(error)).replace(
      /\. To specify a positional.*$/,
      "",
    );
    throw new Error(`${message} (plant-store ${command.name} --help lists the options)`);
  }
  if (parsed.values.help === true) {
    process.stdout.write(commandHelp(command));
    return 0;
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  // Loaded here for the same reason: help needs no configuration.
  const { loadConfig } = await import("../config.js");
  return command.run(
    { values, positionals: parsed.positionals },
    loadConfig(process.env, { keySourceRequired: false }),
  );
}

run(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // Every failure is one line: the command's own errors, a bad flag, a bad environment, a failing file system.
    const message = oneLine(error);
    const where =
      process.argv[2] && COMMANDS.some((command) => command.name === process.argv[2]) ? ` ${process.argv[2]}` : "";
    process.stderr.write(`plant-store${where}: ${message}\n`);
    process.exitCode = 1;
  },
);
