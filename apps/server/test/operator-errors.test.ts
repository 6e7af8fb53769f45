import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { positiveNumber } from "../src/cli/command.js";
import { loadConfig } from "../src/config.js";
import {
  CommandError,
  ConfigError,
  CopyStoreError,
  DatabaseUrlError,
  KeySetupError,
  OperatorError,
  OperatorErrorCode,
  SnapshotError,
  StartFailure,
  StoreReadError,
} from "../src/operator-errors.js";
import { listenFailure } from "../src/startup/start-failure.js";
import { parseDatabaseUrl } from "../src/store/database-url.js";

describe("the catalogue of operator errors", () => {
  it("keeps every code it has released: log queries and alerts match on them", () => {
    expect(OperatorErrorCode).toEqual({
      ConfigInvalid: "PLANT_STORE_CONFIG_INVALID",
      DatabaseUrlInvalid: "PLANT_STORE_DATABASE_URL_INVALID",
      KeyInvalid: "PLANT_STORE_KEY_INVALID",
      StartFailed: "PLANT_STORE_START_FAILED",
      CommandInvalid: "PLANT_STORE_COMMAND_INVALID",
      StoreUnreadable: "PLANT_STORE_STORE_UNREADABLE",
      SnapshotFailed: "PLANT_STORE_SNAPSHOT_FAILED",
      CopyFailed: "PLANT_STORE_COPY_FAILED",
    });
  });

  it.each([
    [
      new ConfigError("PORT", "must be a number"),
      "ConfigError",
      "ConfigInvalid",
      "invalid configuration: PORT: must be a number",
    ],
    [new DatabaseUrlError("names no store"), "DatabaseUrlError", "DatabaseUrlInvalid", "names no store"],
    [new KeySetupError("is a private key"), "KeySetupError", "KeyInvalid", "is a private key"],
    [new StartFailure("PORT", "PORT: in use"), "StartFailure", "StartFailed", "PORT: in use"],
    [new CommandError("--to is required"), "CommandError", "CommandInvalid", "--to is required"],
    [new StoreReadError("no SQLite store"), "StoreReadError", "StoreUnreadable", "no SQLite store"],
    [new SnapshotError("no room"), "SnapshotError", "SnapshotFailed", "no room"],
    [new CopyStoreError("not a store"), "CopyStoreError", "CopyFailed", "not a store"],
  ] as const)("%s carries its name, its code and the message operators read", (error, name, code, message) => {
    expect(error).toBeInstanceOf(OperatorError);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name, code: OperatorErrorCode[code], message });
  });

  it("documents every code where operators look it up (docs/configuration.md)", () => {
    const docs = readFileSync(new URL("../../../docs/configuration.md", import.meta.url), "utf8");
    for (const code of Object.values(OperatorErrorCode)) expect(docs).toContain(`| \`${code}\` |`);
  });
});

describe("`setting` is the one field that names what to mend", () => {
  it("a bad variable: the variable, and the first one when several are bad (the message names them all)", () => {
    expect(() => loadConfig({ PORT: "eighty", LOG_LEVEL: "loud" })).toThrow(
      expect.objectContaining({ code: "PLANT_STORE_CONFIG_INVALID", setting: "PORT" }),
    );
    expect(() => loadConfig({ PORT: "eighty", LOG_LEVEL: "loud" })).toThrow(
      /^invalid configuration: PORT: .+; LOG_LEVEL: /,
    );
  });

  it("a DATABASE_URL that names no store: DATABASE_URL, with the parser's own message", () => {
    let parserMessage = "";
    try {
      parseDatabaseUrl("mysql://db/plants");
    } catch (error) {
      expect(error).toMatchObject({ code: "PLANT_STORE_DATABASE_URL_INVALID", setting: undefined });
      parserMessage = (error as Error).message;
    }
    expect(() => loadConfig({ DATABASE_URL: "mysql://db/plants" })).toThrow(
      expect.objectContaining({
        setting: "DATABASE_URL",
        message: `invalid configuration: DATABASE_URL: ${parserMessage}`,
      }),
    );
  });

  it("a failed listen: the port's or the host's setting", () => {
    const target = { port: 80, host: "192.0.2.1", portSetting: "METRICS_PORT", hostSetting: "METRICS_HOST" };
    const inUse = Object.assign(new Error("listen EADDRINUSE"), { code: "EADDRINUSE" });
    const notHere = Object.assign(new Error("listen EADDRNOTAVAIL"), { code: "EADDRNOTAVAIL" });
    expect(listenFailure(inUse, target)).toMatchObject({ code: "PLANT_STORE_START_FAILED", setting: "METRICS_PORT" });
    expect(listenFailure(notHere, target)).toMatchObject({ setting: "METRICS_HOST" });
  });

  it("a command's bad option: the option as typed", () => {
    expect(() => positiveNumber({ values: { every: "soon" }, positionals: [] }, "every", 60)).toThrow(
      expect.objectContaining({ code: "PLANT_STORE_COMMAND_INVALID", setting: "--every" }),
    );
  });
});
