/**
 * Every failure an operator meets, starting the server or running a `plant-store` command, by name. A code never
 * changes once released: log queries and alerts match on it (the `fatal` line of a failed start carries it), as
 * fastify's FST_ERR_* codes. Clients' failures are the contract's ErrorCode table, not these.
 */
export const OperatorErrorCode = {
  /** A setting's value cannot be used; the process does not start (`setting`: the variable). */
  ConfigInvalid: "PLANT_STORE_CONFIG_INVALID",
  /** A value names no store: neither a SQLite file nor a PostgreSQL database (DATABASE_URL, copy-store's --to). */
  DatabaseUrlInvalid: "PLANT_STORE_DATABASE_URL_INVALID",
  /** A configured token key cannot verify tokens: not a PEM public key, a private key, an unreadable file. */
  KeyInvalid: "PLANT_STORE_KEY_INVALID",
  /** The configured server could not start: a port in use, a store that refuses it (`setting`: what to mend). */
  StartFailed: "PLANT_STORE_START_FAILED",
  /** A command was given what it cannot work with: a bad option, a missing file, the wrong kind of store. */
  CommandInvalid: "PLANT_STORE_COMMAND_INVALID",
  /** A store a command names cannot be read as one (inspect, copy-store's two sides). */
  StoreUnreadable: "PLANT_STORE_STORE_UNREADABLE",
  /** A snapshot cannot be written or restored: its file, or the store it is taken from or put in place of. */
  SnapshotFailed: "PLANT_STORE_SNAPSHOT_FAILED",
  /** copy-store cannot copy: the target is not a store it may write to. */
  CopyFailed: "PLANT_STORE_COPY_FAILED",
} as const;

export type OperatorErrorCode = (typeof OperatorErrorCode)[keyof typeof OperatorErrorCode];

/**
 * A failure an operator mends: the message is the one line they read (unchanged by the code), `code` says which
 * failure it is, and `setting`, when one is to blame, names it as the operator sets it: an environment variable
 * (`PORT`, `DATABASE_URL`) or a command's option (`--to`). No other field says which setting.
 */
export class OperatorError extends Error {
  readonly setting: string | undefined;

  constructor(
    readonly code: OperatorErrorCode,
    message: string,
    options: { setting?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.setting = options.setting;
  }
}

/** A configuration the process must not start with: `invalid configuration: <setting>: <problem>`. */
export class ConfigError extends OperatorError {
  override name = "ConfigError";

  constructor(setting: string, problem: string) {
    super(OperatorErrorCode.ConfigInvalid, `invalid configuration: ${setting}: ${problem}`, { setting });
  }
}

/** A value that names no store; the message says what was given (password masked) and what was expected. */
export class DatabaseUrlError extends OperatorError {
  override name = "DatabaseUrlError";

  constructor(message: string) {
    super(OperatorErrorCode.DatabaseUrlInvalid, message);
  }
}

/** A token key the server cannot verify with; whoever configured the source names the setting (a ConfigError). */
export class KeySetupError extends OperatorError {
  override name = "KeySetupError";

  constructor(problem: string) {
    super(OperatorErrorCode.KeyInvalid, problem);
  }
}

/**
 * Why the server could not start, as one line that names the setting to mend (`PORT`, `HOST`, `DATABASE_URL`…),
 * which `setting` repeats for log queries. Logged once by the start's one cleanup path; main.ts then exits 1.
 */
export class StartFailure extends OperatorError {
  override name = "StartFailure";

  constructor(setting: string, message: string, options: { cause?: unknown } = {}) {
    super(OperatorErrorCode.StartFailed, message, { ...options, setting });
  }
}

/** A failure the operator caused or can mend (a missing file, a bad flag): printed as one line, exit 1. */
export class CommandError extends OperatorError {
  override name = "CommandError";

  constructor(message: string, options: { setting?: string; cause?: unknown } = {}) {
    super(OperatorErrorCode.CommandInvalid, message, options);
  }
}

/** A store an operator named that cannot be read as one; the message is one line and names no secret. */
export class StoreReadError extends OperatorError {
  override name = "StoreReadError";

  constructor(message: string, options: { cause?: unknown } = {}) {
    super(OperatorErrorCode.StoreUnreadable, message, options);
  }
}

/** A failure of the store or the snapshot's file that the operator can act on; its message is one line. */
export class SnapshotError extends OperatorError {
  override name = "SnapshotError";

  constructor(message: string, options: { cause?: unknown } = {}) {
    super(OperatorErrorCode.SnapshotFailed, message, options);
  }
}

/** A copy-store failure the operator can act on; its message is one line and names no secret. */
export class CopyStoreError extends OperatorError {
  override name = "CopyStoreError";

  constructor(message: string, options: { cause?: unknown } = {}) {
    super(OperatorErrorCode.CopyFailed, message, options);
  }
}
