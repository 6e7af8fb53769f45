import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DatabaseUrlError } from "../operator-errors.js";

/** The store a DATABASE_URL names: a SQLite file (an absolute path) or a PostgreSQL database. */
export type DatabaseUrl =
  | { system: "sqlite"; file: string }
  | { system: "postgresql"; url: string; host: string; port: number; database: string };

const SQLITE_EXTENSIONS = [".db", ".sqlite", ".sqlite3"];
const EXPECTED_SQLITE = `a SQLite file (a file:// URL, or a path ending in ${SQLITE_EXTENSIONS.join(", ")})`;
const EXPECTED_POSTGRES =
  "a postgres:// or postgresql:// URL with a host and a database name (postgres://user@host:5432/plants)";
const EXPECTED = `expected ${EXPECTED_SQLITE} or ${EXPECTED_POSTGRES}`;

/**
 * The one reader of a DATABASE_URL (the server's, the CLI's, copy-store's --to). Strict, because a value it
 * guessed at would put the store where nothing reads it: a typo in a URL is not a relative path, and a URL
 * without a database name does not mean the server's default one. A relative SQLite path is resolved against
 * the working folder here, once, so every message names the file by absolute path.
 */
export function parseDatabaseUrl(value: string): DatabaseUrl {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1]?.toLowerCase();
  if (scheme === "postgres" || scheme === "postgresql") return parsePostgres(value);
  if (scheme === "file") return { system: "sqlite", file: fileUrlPath(value) };
  // One letter before a colon is a Windows drive, not a scheme; anything longer is a URL of another kind.
  if (scheme !== undefined && scheme.length > 1) {
    throw new DatabaseUrlError(`${quote(value)} is a ${scheme}: URL; ${EXPECTED}`);
  }
  if (/^postgres(ql)?\/*[^:/]/i.test(value))
    throw new DatabaseUrlError(`${quote(value)} lacks the colon of postgres://; ${EXPECTED}`);
  if (!SQLITE_EXTENSIONS.some((extension) => value.toLowerCase().endsWith(extension))) {
    throw new DatabaseUrlError(`${quote(value)} is neither a SQLite file nor a PostgreSQL URL; ${EXPECTED}`);
  }
  return { system: "sqlite", file: resolve(value) };
}

/** Where a store is, as logs and messages show it: the file's absolute path, or the URL with its password masked. */
export function describeDatabaseUrl(database: DatabaseUrl): string {
  return database.system === "sqlite" ? database.file : maskPassword(database.url);
}

/** A DATABASE_URL as it may be printed, parsable or not: the password between `user:` and `@` is replaced. */
export function maskPassword(value: string): string {
  return value.replace(/(\/\/[^/?#@:]*:)[^/?#]*@/, "$1redacted@");
}

function parsePostgres(value: string): DatabaseUrl {
  if (!URL.canParse(value))
    throw new DatabaseUrlError(`${quote(value)} is not a valid URL; expected ${EXPECTED_POSTGRES}`);
  const url = new URL(value);
  // libpq's form for a Unix socket: postgres:///plants?host=/var/run/postgresql.
  const host = url.hostname || url.searchParams.get("host") || "";
  if (host === "") throw new DatabaseUrlError(`${quote(value)} names no host; expected ${EXPECTED_POSTGRES}`);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ""));
  if (database === "") throw new DatabaseUrlError(`${quote(value)} names no database; expected ${EXPECTED_POSTGRES}`);
  if (database.includes("/"))
    throw new DatabaseUrlError(`${quote(value)} has a path after the database name; expected ${EXPECTED_POSTGRES}`);
  const port = url.port === "" ? 5432 : Number(url.port);
  return { system: "postgresql", url: value, host, port, database };
}

function fileUrlPath(value: string): string {
  // `file:data/plants.db` parses as /data/plants.db: a relative file URL is not what it seems, so it is refused.
  const expected = "expected an absolute file:// URL (file:///var/lib/plant-store/plants.db) or a path";
  if (!/^file:\/\//i.test(value) || !URL.canParse(value))
    throw new DatabaseUrlError(`${quote(value)} is not an absolute file:// URL; ${expected}`);
  let file: string;
  try {
    file = fileURLToPath(value);
  } catch {
    throw new DatabaseUrlError(`${quote(value)} names a file on another host; ${expected}`);
  }
  if (file.endsWith("/")) throw new DatabaseUrlError(`${quote(value)} names a folder, not a file; ${expected}`);
  return file;
}

function quote(value: string): string {
  return JSON.stringify(maskPassword(value));
}
