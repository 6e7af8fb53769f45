import type { Config } from "../config.js";
import { CommandError } from "../operator-errors.js";

/** One option of a command, as node:util parseArgs takes it, with what `--help` says about it. */
export interface CommandOption {
  type: "string" | "boolean";
  short?: string;
  /** The value's name in `--help` (`--every <minutes>`); string options only. */
  value?: string;
  description: string;
}

/** What parseArgs read from the command line: option values by name, and the positional arguments. */
export interface CommandArgs {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** A `plant-store` command (src/cli/main.ts lists them, with the one line `plant-store --help` says of each). */
export interface Command {
  name: string;
  /** The usage lines after `plant-store <name>`, e.g. `<file> [--force]`. */
  usage: string[];
  /** What `plant-store <name> --help` says after the usage. */
  description: string;
  options: Record<string, CommandOption>;
  /** Runs with the server's configuration; resolves with the exit code. */
  run(args: CommandArgs, config: Config): Promise<number>;
}

// A command prints a failure as the one line every operator-facing message uses.
export { oneLine } from "../one-line.js";

/** A positive number from option `name`, or `fallback` when it is not given. */
export function positiveNumber(args: CommandArgs, name: string, fallback: number, { integer = false } = {}): number {
  const raw = args.values[name];
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (
    typeof raw !== "string" ||
    raw.trim() === "" ||
    !Number.isFinite(value) ||
    value <= 0 ||
    (integer && !Number.isInteger(value))
  ) {
    throw new CommandError(
      `--${name} must be a positive ${integer ? "whole number" : "number"}, not ${JSON.stringify(raw)}`,
      { setting: `--${name}` },
    );
  }
  return value;
}

/** The one positional argument a command takes; `what` names it in the error when it is missing or doubled. */
export function onePositional(args: CommandArgs, what: string): string {
  if (args.positionals.length !== 1) {
    throw new CommandError(
      args.positionals.length === 0
        ? `${what} is missing`
        : `expected ${what} alone, got ${args.positionals.length} arguments`,
    );
  }
  return args.positionals[0]!;
}

/** A TCP port from option `name` (0 asks for any free one), or undefined when it is not given. */
export function portNumber(args: CommandArgs, name: string): number | undefined {
  const raw = args.values[name];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (typeof raw !== "string" || !/^\d+$/.test(raw.trim()) || value > 65535) {
    throw new CommandError(`--${name} must be a port number from 0 to 65535, not ${JSON.stringify(raw)}`, {
      setting: `--${name}`,
    });
  }
  return value;
}
