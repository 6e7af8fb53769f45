import { ErrorCode, type ErrorCodeNameOf, type ErrorStatus, errorResponses } from "@plant-store/contract";
import { unauthorized } from "./fake-auth.js";

/** An error answer of status `S`: its code must be one the contract's error table allows under `S`. */
export type StatusFailure = {
  [S in ErrorStatus]: {
    status: S;
    /** The error code by name; default: the first the contract lists for the status. */
    code?: ErrorCodeNameOf<S>;
    /** The Error body's message; default: the contract's description of the status. */
    message?: string;
    /** The Retry-After seconds, sent for the statuses whose contract entry lists Retry-After (429, 503); default 1. */
    retryAfterSeconds?: number;
  };
}[ErrorStatus];

/**
 * What the next requests meet: an error status (e.g. `{ status: 503 }`), a late answer (`{ delayMs }`, then
 * the request is served as usual), or a lost connection (`{ disconnect: true }`, the socket is destroyed).
 */
export type FakeFailure = StatusFailure | { delayMs: number } | { disconnect: true };

/** The headers and Error body of a status failure, as the contract's error table describes the status. */
export function statusAnswer(failure: StatusFailure): {
  status: ErrorStatus;
  headers: Record<string, string>;
  body: { error: number; message: string };
} {
  const spec = errorResponses[failure.status];
  const code = failure.code ?? spec.codes[0];
  const headers: Record<string, string> = {};
  if ((spec.headers as readonly string[]).includes("Retry-After"))
    headers["Retry-After"] = String(failure.retryAfterSeconds ?? 1);
  const message = failure.message ?? spec.description;
  if (failure.status === 401)
    headers["WWW-Authenticate"] = unauthorized(failure.code ?? "MissingToken", message).challenge;
  if (failure.status === 403) headers["WWW-Authenticate"] = 'Bearer realm="plant-store", error="insufficient_scope"';
  // The server answers these on the socket and closes it (client-errors.ts); so does the fake.
  if (failure.status === 408 || failure.status === 431) headers.Connection = "close";
  return { status: failure.status, headers, body: { error: ErrorCode[code], message } };
}

/** The failures queued by failNext, handed out one per request in arrival order. */
export class FailureQueue {
  readonly #queue: FakeFailure[] = [];

  /** Queues `failure` for the next `count` requests (after any already queued). */
  add(count: number, failure: FakeFailure): void {
    if (!Number.isInteger(count) || count < 1)
      throw new RangeError(`failNext needs a positive whole count, got ${count}`);
    for (let i = 0; i < count; i++) this.#queue.push(failure);
  }

  /** The failure for the request that just arrived, if one is queued. */
  take(): FakeFailure | undefined {
    return this.#queue.shift();
  }

  /** Drops every queued failure. */
  clear(): void {
    this.#queue.length = 0;
  }
}
