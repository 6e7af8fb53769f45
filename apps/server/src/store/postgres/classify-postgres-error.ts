import { StoreUnavailableError } from "../store-unavailable.js";

// SQLSTATE classes that mean "the database cannot serve us right now", not "the query is wrong":
// 08 connection exception, 53 insufficient resources (e.g. too many connections), 57 operator
// intervention (admin shutdown, cannot connect now, statement timeout), 58 system error,
// 40 transaction rollback (deadlock, serialization), 55 lock not available.
const TRANSIENT_SQLSTATE_CLASSES = new Set(["08", "40", "53", "55", "57", "58"]);

// Socket-level failures Node reports while the database is unreachable.
const NETWORK_ERROR_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

// What pg itself says when a connection dies or a timeout fires; these carry no code.
const PG_CONNECTION_MESSAGES =
  /Connection terminated|Query read timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed|connection is closed|Cannot use a pool after calling end/i;

/** Turns an error from pg into StoreUnavailableError when it means the database is out of reach. */
export function classifyPostgresError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  const transient =
    typeof code === "string"
      ? (code.length === 5 && TRANSIENT_SQLSTATE_CLASSES.has(code.slice(0, 2))) || NETWORK_ERROR_CODES.has(code)
      : PG_CONNECTION_MESSAGES.test(error.message);
  return transient ? new StoreUnavailableError("PostgreSQL is unavailable", { cause: error }) : error;
}
