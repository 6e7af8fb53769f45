import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ErrorCode, type ErrorStatus, plantStoreContract } from "@plant-store/contract";
import { bodyRequired, contentTypeRejection, declaresBody, describeValidationError, parseJsonBody } from "@plant-store/contract/wire";
import { checkBearer, type VerifyToken } from "./fake-auth.js";
import { type FakeFailure, FailureQueue, statusAnswer } from "./failures.js";
import { readBody } from "./read-body.js";

/** A plant as the fake stores it. */
export interface FakePlant {
  id: bigint;
  name: string;
  tag?: string;
}

/** How to start the fake. */
export interface FakePlantStoreOptions {
  /** The port on 127.0.0.1; default 0 (a free one). */
  port?: number;
  /** Plants that exist before the first request (an id may be a safe-integer number). */
  plants?: Iterable<{ id: bigint | number; name: string; tag?: string }>;
  /** Decides which well-formed bearer tokens are accepted (others get 401 InvalidToken); default: all. */
  verifyToken?: VerifyToken;
  /** The largest request body accepted; larger ones get 413. Default 1 MiB, as the server's BODY_LIMIT_BYTES. */
  bodyLimitBytes?: number;
}

/** A running fake Plant Store. */
export interface FakePlantStore {
  /** The base URL to give the client, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** The plants stored so far, by id (seeded ones included). */
  plants: ReadonlyMap<bigint, FakePlant>;
  /**
   * Makes the next `count` requests meet `failure`: an error status with the contract's codes (429 and 503
   * with Retry-After), a late answer, or a lost connection.
   */
  failNext(count: number, failure: FakeFailure): void;
  /** Stops the server, dropping open connections and pending late answers. */
  close(): Promise<void>;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;
const route = plantStoreContract.plants.create;
const routePath = route.path.toLowerCase();

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const json = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": String(Buffer.byteLength(json)),
  });
  res.end(json);
}

function sendError(res: ServerResponse, status: ErrorStatus, body: { error: number; message: string }, headers?: Record<string, string>) {
  send(res, status, body, headers);
}

function pathOf(url: string | undefined): string {
  const path = url ?? "/";
  const query = path.indexOf("?");
  return query === -1 ? path : path.slice(0, query);
}

// Express's defaults, which the server routes with: paths match case-insensitively, with or without a trailing slash.
function isCreateRoute(req: IncomingMessage): boolean {
  return req.method === route.method && pathOf(req.url).toLowerCase().replace(/(.)\/$/, "$1") === routePath;
}

function toFakePlant(plant: { id: bigint | number; name: string; tag?: string | undefined }): FakePlant {
  return { id: BigInt(plant.id), name: plant.name, ...(plant.tag !== undefined && { tag: plant.tag }) };
}

/**
 * Starts an in-memory Plant Store on 127.0.0.1 that answers POST /plants as the server does: bearer token
 * required, the body read by the contract's wire rules and validated by its schema, create idempotent by id,
 * 409 for an id stored with other data, 413 over the body limit, 404 elsewhere, X-Request-Id on every answer.
 */
export async function startFakePlantStore(options: FakePlantStoreOptions = {}): Promise<FakePlantStore> {
  const plants = new Map<bigint, FakePlant>();
  for (const plant of options.plants ?? []) plants.set(BigInt(plant.id), toFakePlant(plant));
  const failures = new FailureQueue();
  const lateAnswers = new Set<NodeJS.Timeout>();
  const limitBytes = options.bodyLimitBytes ?? 1024 * 1024;

  async function create(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refused = await checkBearer(req.headers.authorization, options.verifyToken);
    if (refused) return sendError(res, 401, refused.body, { "WWW-Authenticate": refused.challenge });
    if (!declaresBody(req.headers)) return sendError(res, 400, bodyRequired);
    const badType = contentTypeRejection(req.headers["content-type"]);
    if (badType) return sendError(res, 400, badType);
    const bytes = await readBody(req, limitBytes);
    if (bytes === "incomplete") return;
    if (bytes === "too-large") {
      const message = `request body is larger than the limit of ${limitBytes} bytes`;
      // The rest of the body is not read: the connection cannot carry another request.
      return sendError(res, 413, { error: ErrorCode.PayloadTooLarge, message }, { Connection: "close" });
    }
    const parsed = parseJsonBody(bytes);
    if ("rejection" in parsed) return sendError(res, 400, parsed.rejection);
    const valid = route.body.safeParse(parsed.body);
    if (!valid.success) {
      return sendError(res, 400, { error: ErrorCode.ValidationFailed, message: describeValidationError(valid.error) });
    }
    const plant = toFakePlant(valid.data);
    const stored = plants.get(plant.id);
    if (stored && (stored.name !== plant.name || stored.tag !== plant.tag)) {
      const message = `a plant with id ${plant.id} already exists with a different name or tag`;
      return sendError(res, 409, { error: ErrorCode.PlantIdConflict, message });
    }
    if (!stored) plants.set(plant.id, plant);
    const { name, tag } = stored ?? plant;
    send(res, 200, { name, ...(tag !== undefined && { tag }) });
  }

  async function serve(req: IncomingMessage, res: ServerResponse, failure: FakeFailure | undefined): Promise<void> {
    if (failure && "disconnect" in failure) {
      req.socket.destroy();
      return;
    }
    if (failure && "delayMs" in failure) {
      const timer = setTimeout(() => {
        lateAnswers.delete(timer);
        answer(req, res, undefined);
      }, failure.delayMs);
      lateAnswers.add(timer);
      return;
    }
    if (failure) {
      const answer = statusAnswer(failure);
      return sendError(res, answer.status, answer.body, answer.headers);
    }
    if (!isCreateRoute(req)) {
      return sendError(res, 404, { error: ErrorCode.NotFound, message: `no route for ${req.method} ${pathOf(req.url)}` });
    }
    await create(req, res);
  }

  // A verifyToken that throws is the fake's own failure: a generic 500, as the server answers its own.
  function answer(req: IncomingMessage, res: ServerResponse, failure: FakeFailure | undefined): void {
    serve(req, res, failure).catch(() => {
      sendError(res, 500, { error: ErrorCode.InternalError, message: "internal server error" });
    });
  }

  const server = createServer((req, res) => {
    const incoming = req.headers["x-request-id"];
    res.setHeader("X-Request-Id", typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID());
    answer(req, res, failures.take());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    plants,
    failNext: (count, failure) => failures.add(count, failure),
    close: async () => {
      for (const timer of lateAnswers) clearTimeout(timer);
      lateAnswers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
