import { type ErrorCodeName, errorCodeName } from "@plant-store/contract";

function isErrorBody(body: unknown): body is { error: number; message: string } {
  return (
    typeof body === "object" &&
    body !== null &&
    typeof (body as { error?: unknown }).error === "number" &&
    typeof (body as { message?: unknown }).message === "string"
  );
}

/** The server answered with a status other than 200; thrown by `createOrThrow` and for statuses the contract does not declare. */
export class PlantStoreApiError extends Error {
  override name = "PlantStoreApiError";
  /** The HTTP status, e.g. 409. */
  readonly status: number;
  /** The contract's error code by name, e.g. `"PlantIdConflict"`; undefined when the body carried no code this version knows. */
  readonly code: ErrorCodeName | undefined;
  /** The numeric error code from the body, e.g. 40901; undefined when the body was not the contract's Error. */
  readonly errorCode: number | undefined;
  /** The response body as received. */
  readonly body: unknown;

  /** Builds the error from a response's status and body, taking the code and message from an Error body. */
  constructor(status: number, body: unknown) {
    const known = isErrorBody(body);
    super(known ? body.message : `the server answered ${status}`);
    this.status = status;
    this.errorCode = known ? body.error : undefined;
    this.code = known ? errorCodeName(body.error) : undefined;
    this.body = body;
  }
}

/** The call took longer than its `timeoutMs`, retries included; the request was aborted. */
export class PlantStoreTimeoutError extends Error {
  override name = "PlantStoreTimeoutError";
  /** The limit that was reached, in milliseconds. */
  readonly timeoutMs: number;

  /** Builds the error for a call that ran out of its `timeoutMs`. */
  constructor(timeoutMs: number) {
    super(`the call did not complete within ${timeoutMs} ms`);
    this.timeoutMs = timeoutMs;
  }
}
