import {
  type ApiError,
  type ErrorCodeName,
  type ErrorCodeNameOf,
  ErrorSchema,
  type ErrorStatus,
  errorCodeName,
  errorResponses,
  errorSchemas,
} from "@plant-store/contract";

/** The codes status `S` may carry, by name: its own when the contract declares `S`, any otherwise. */
type CodeNameFor<S extends number> = number extends S
  ? ErrorCodeName
  : S extends ErrorStatus
    ? ErrorCodeNameOf<S>
    : ErrorCodeName;

function isErrorStatus(status: number): status is ErrorStatus {
  return Object.hasOwn(errorResponses, status);
}

/**
 * The body as the contract reads it: an Error body of this status (its `error` one of the status's codes),
 * or, for a status the contract does not declare, any Error body.
 */
function readErrorBody(status: number, body: unknown): { error: ApiError; known: boolean } | undefined {
  if (isErrorStatus(status)) {
    const own = errorSchemas[status].safeParse(body);
    if (own.success) return { error: own.data, known: true };
  }
  const any = ErrorSchema.safeParse(body);
  return any.success ? { error: any.data, known: !isErrorStatus(status) } : undefined;
}

/**
 * The server answered with a status other than a success; thrown by the `…OrThrow` methods and for statuses
 * the contract does not declare. `status`, `code` and `body` are typed by the contract's error table:
 * narrow with {@link PlantStoreApiError.is}, e.g. `error.is(409)` makes `code` `"PlantIdConflict" | undefined`.
 */
export class PlantStoreApiError<S extends number = number> extends Error {
  override name = "PlantStoreApiError";
  /** The HTTP status, e.g. 409. */
  readonly status: S;
  /**
   * The contract's error code by name, e.g. `"PlantIdConflict"`; undefined when the body carried no code this
   * version knows, or a code the contract does not allow under this status.
   */
  readonly code: CodeNameFor<S> | undefined;
  /** The numeric error code from the body, e.g. 40901; undefined when the body was not the contract's Error. */
  readonly errorCode: number | undefined;
  /** The response body as received. */
  readonly body: unknown;

  /** Builds the error from a response's status and body, taking the code and message from an Error body. */
  constructor(status: S, body: unknown) {
    const read = readErrorBody(status, body);
    super(read ? read.error.message : `the server answered ${status}`);
    this.status = status;
    this.errorCode = read?.error.error;
    this.code = read?.known ? (errorCodeName(read.error.error) as CodeNameFor<S> | undefined) : undefined;
    this.body = body;
  }

  /** Whether the server answered `status`; narrows `code` to the codes the contract allows under it. */
  is<T extends ErrorStatus>(status: T): this is PlantStoreApiError<T> {
    return this.status === (status as number);
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

/**
 * The client refused the call itself, without sending it: the server refused (429 or 503) so much of what this
 * client sent lately that it holds back a share of its calls (its `throttle`). Not a {@link PlantStoreApiError}:
 * no request reached the server. Retrying at once is likely to be refused again.
 */
export class PlantStoreThrottledError extends Error {
  override name = "PlantStoreThrottledError";
  /** The origin whose window refused the call, e.g. `https://plants.example.com`. */
  readonly origin: string;
  /** The probability of a local refusal when this call was refused, from 0 to 1. */
  readonly refusalProbability: number;

  /** Builds the error for a call refused locally at `refusalProbability`. */
  constructor(origin: string, refusalProbability: number) {
    super(
      `the client refused the call to ${origin} itself: the server refused most recent requests (refusing ${Math.round(refusalProbability * 100)}% locally)`,
    );
    this.origin = origin;
    this.refusalProbability = refusalProbability;
  }
}
