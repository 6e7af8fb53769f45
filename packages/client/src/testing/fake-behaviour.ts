import { ErrorCode, plantStoreContract } from "@plant-store/contract";
import {
  bodyRequired,
  contentTypeRejection,
  declaresBody,
  describeValidationError,
  parseJsonBody,
  REQUEST_ID,
} from "@plant-store/contract/wire";
import { checkBearer, type VerifyToken } from "./fake-auth.js";
import { type FakeFailure, FailureQueue, statusAnswer } from "./failures.js";
import { type FakePlant, FakePlants, type SeedPlant } from "./fake-plants.js";

/** What every fake takes: the HTTP server, the fetch function and the msw handlers. */
export interface FakeOptions {
  /** Plants that exist before the first request (an id may be a safe-integer number). */
  plants?: Iterable<SeedPlant>;
  /** Decides which well-formed bearer tokens are accepted (others get 401 InvalidToken); default: all. */
  verifyToken?: VerifyToken;
  /** The largest request body accepted; larger ones get 413. Default 1 MiB, as the server's BODY_LIMIT_BYTES. */
  bodyLimitBytes?: number;
}

/** What a test does with any of the fakes between requests. */
export interface FakeControls {
  /** The plants stored so far, by id (seeded ones included). */
  plants: ReadonlyMap<bigint, FakePlant>;
  /**
   * Makes the next `count` requests meet `failure`: an error status with the contract's codes (429 and 503
   * with Retry-After), a late answer, or a lost connection.
   */
  failNext(count: number, failure: FakeFailure): void;
  /** Back to the start: the seeded plants only, no failures queued; requests waiting on a late answer lose their connection. */
  reset(): void;
}

/** A request as a transport hands it to the fake. */
export interface FakeRequest {
  method: string;
  /** The request target: the path and query, e.g. `/plants?dry=1`. */
  target: string;
  /** The headers by lower-case name, as they arrived on the wire (a sent body has Content-Length or Transfer-Encoding). */
  headers: Record<string, string | undefined>;
  /** The body's bytes, "too-large" past `limitBytes`, or "incomplete" when the client went away. */
  readBody(limitBytes: number): Promise<Uint8Array | "too-large" | "incomplete">;
}

/** A response for the transport to send. */
export interface FakeResponse {
  status: number;
  headers: Record<string, string>;
  /** The JSON text of the body. */
  body: string;
}

/** What the transport does: send a response, drop the connection, or nothing (the client is gone). */
export type FakeOutcome = { response: FakeResponse } | { disconnect: true } | { gone: true };

/** The fake's behaviour, one function from request to outcome; transports are adapters over it. */
export interface FakeBehaviour extends FakeControls {
  answer(request: FakeRequest): Promise<FakeOutcome>;
  /** Ends the requests waiting on a late answer as lost connections (a transport shutting down). */
  dropLateAnswers(): void;
}

const route = plantStoreContract.plants.create;
const routePath = route.path.toLowerCase();

function pathOf(target: string): string {
  const query = target.indexOf("?");
  return query === -1 ? target : target.slice(0, query);
}

// Express's defaults, which the server routes with: paths match case-insensitively, with or without a trailing slash.
function isCreateRoute(request: FakeRequest): boolean {
  return (
    request.method === route.method &&
    pathOf(request.target)
      .toLowerCase()
      .replace(/(.)\/$/, "$1") === routePath
  );
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): { response: FakeResponse } {
  return {
    response: {
      status,
      headers: { ...headers, "Content-Type": "application/json; charset=utf-8" },
      body: JSON.stringify(body),
    },
  };
}

/**
 * The Plant Store as the fakes play it, over the contract: POST /plants with a bearer token required, the body
 * read by the contract's wire rules and validated by its schema, create idempotent by id, 409 for an id stored
 * with other data, 413 over the body limit, 404 elsewhere, X-Request-Id on every answer; and `failNext`.
 */
export function createFakeBehaviour(options: FakeOptions = {}): FakeBehaviour {
  const plants = new FakePlants(options.plants);
  const failures = new FailureQueue();
  const limitBytes = options.bodyLimitBytes ?? 1024 * 1024;
  // Late answers waiting on their timer; reset() ends them as lost connections.
  const lateAnswers = new Map<ReturnType<typeof setTimeout>, () => void>();

  function waitLate(delayMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        lateAnswers.delete(timer);
        resolve(true);
      }, delayMs);
      lateAnswers.set(timer, () => resolve(false));
    });
  }

  function dropLateAnswers(): void {
    for (const [timer, drop] of lateAnswers) {
      clearTimeout(timer);
      drop();
    }
    lateAnswers.clear();
  }

  async function create(request: FakeRequest): Promise<FakeOutcome> {
    const refused = await checkBearer(request.headers.authorization, options.verifyToken);
    if (refused) return json(401, refused.body, { "WWW-Authenticate": refused.challenge });
    if (!declaresBody(request.headers)) return json(400, bodyRequired);
    const badType = contentTypeRejection(request.headers["content-type"]);
    if (badType) return json(400, badType);
    const bytes = await request.readBody(limitBytes);
    if (bytes === "incomplete") return { gone: true };
    if (bytes === "too-large") {
      const message = `request body is larger than the limit of ${limitBytes} bytes`;
      // The rest of the body is not read: the connection cannot carry another request.
      return json(413, { error: ErrorCode.PayloadTooLarge, message }, { Connection: "close" });
    }
    const parsed = parseJsonBody(bytes);
    if ("rejection" in parsed) return json(400, parsed.rejection);
    const valid = route.body.safeParse(parsed.body);
    if (!valid.success)
      return json(400, { error: ErrorCode.ValidationFailed, message: describeValidationError(valid.error) });
    const stored = plants.create(valid.data);
    if (stored === "conflict") {
      const message = `a plant with id ${BigInt(valid.data.id)} already exists with a different name or tag`;
      return json(409, { error: ErrorCode.PlantIdConflict, message });
    }
    return json(200, { name: stored.name, ...(stored.tag !== undefined && { tag: stored.tag }) });
  }

  async function serve(request: FakeRequest, failure: FakeFailure | undefined): Promise<FakeOutcome> {
    if (failure && "disconnect" in failure) return { disconnect: true };
    if (failure && "delayMs" in failure) {
      if (!(await waitLate(failure.delayMs))) return { disconnect: true };
    } else if (failure) {
      const answer = statusAnswer(failure);
      return json(answer.status, answer.body, answer.headers);
    }
    if (!isCreateRoute(request)) {
      return json(404, {
        error: ErrorCode.NotFound,
        message: `no route for ${request.method} ${pathOf(request.target)}`,
      });
    }
    return create(request);
  }

  async function answer(request: FakeRequest): Promise<FakeOutcome> {
    const incoming = request.headers["x-request-id"];
    const requestId = incoming !== undefined && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    let outcome: FakeOutcome;
    try {
      outcome = await serve(request, failures.take());
    } catch {
      // A verifyToken that throws is the fake's own failure: a generic 500, as the server answers its own.
      outcome = json(500, { error: ErrorCode.InternalError, message: "internal server error" });
    }
    if ("response" in outcome) outcome.response.headers["X-Request-Id"] = requestId;
    return outcome;
  }

  return {
    answer,
    plants: plants.byId,
    failNext: (count, failure) => failures.add(count, failure),
    reset() {
      plants.reset();
      failures.clear();
      dropLateAnswers();
    },
    dropLateAnswers,
  };
}
