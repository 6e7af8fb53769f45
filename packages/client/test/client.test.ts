import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { errorSchemas, PlantSchema, plantStoreContract } from "@plant-store/contract";
import { initContract } from "@ts-rest/core";
import { createContractClient } from "../src/contract-client.js";
import {
  createPlantStoreClient,
  ErrorCode,
  PlantStoreApiError,
  type PlantStoreClientOptions,
  PlantStoreTimeoutError,
} from "../src/index.js";
import { createFakePlantStore } from "../src/testing/index.js";

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}
type Answer = (res: ServerResponse) => void;

const ok: Answer = (res) => res.writeHead(200, { "content-type": "application/json" }).end('{"name":"Fern"}');
const status =
  (
    code: number,
    headers: Record<string, string> = {},
    body = { error: code * 100 + 1, message: `status ${code}` },
  ): Answer =>
  (res) =>
    res.writeHead(code, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
const never: Answer = () => undefined;

// A real HTTP peer on loopback that records what the client sent and answers from a script (then 200s).
let server: Server;
let baseUrl: string;
let received: Received[];
let script: Answer[];
let onReceived: (() => void) | undefined;
beforeEach(async () => {
  received = [];
  script = [];
  onReceived = undefined;
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      (script.shift() ?? ok)(res);
      onReceived?.();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  vi.useRealTimers();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("createPlantStoreClient", () => {
  it("POSTs the NewPlant as JSON to /plants with the bearer token", async () => {
    const client = createPlantStoreClient({ baseUrl, token: "abc" });
    const result = await client.plants.create({ id: 7, name: "Fern", tag: "green" });
    expect(result).toMatchObject({ status: 200, body: { name: "Fern" } });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ method: "POST", url: "/plants", body: '{"id":7,"name":"Fern","tag":"green"}' });
    expect(received[0]!.headers.authorization).toBe("Bearer abc");
    expect(received[0]!.headers["content-type"]).toBe("application/json");
  });

  it("writes int64 ids digit for digit", async () => {
    const client = createPlantStoreClient({ baseUrl, token: "abc" });
    await client.plants.create({ id: -9223372036854775808n, name: "min" });
    await client.plants.create({ id: 9223372036854775807n, name: "max" });
    expect(received.map((r) => r.body)).toEqual([
      '{"id":-9223372036854775808,"name":"min"}',
      '{"id":9223372036854775807,"name":"max"}',
    ]);
  });

  it("asks getToken for every request", async () => {
    let calls = 0;
    const client = createPlantStoreClient({ baseUrl, getToken: async () => `token-${++calls}` });
    await client.plants.create({ id: 1, name: "a" });
    await client.plants.create({ id: 2, name: "b" });
    expect(received.map((r) => r.headers.authorization)).toEqual(["Bearer token-1", "Bearer token-2"]);
  });

  it("uses an injected fetch", async () => {
    const seen: string[] = [];
    const client = createPlantStoreClient({
      baseUrl,
      token: "abc",
      fetch: (input, init) => {
        seen.push(`${init.method} ${input}`);
        return fetch(input, init);
      },
    });
    await client.plants.create({ id: 1, name: "a" });
    expect(seen).toEqual([`POST ${baseUrl}/plants`]);
  });

  it("needs a token or getToken", () => {
    expect(() => createPlantStoreClient({ baseUrl })).toThrow(/token/);
  });
});

describe("results and errors", () => {
  it("create resolves with a declared error status as a typed result", async () => {
    script.push(status(409, {}, { error: ErrorCode.PlantIdConflict, message: "id 1 exists" }));
    const client = createPlantStoreClient({ baseUrl, token: "abc" });
    const result = await client.plants.create({ id: 1, name: "a" });
    expect(result.status).toBe(409);
    if (result.status === 409) expect(result.body.error).toBe(ErrorCode.PlantIdConflict);
  });

  it("createOrThrow resolves with the Plant on 200 and throws PlantStoreApiError with status, code name and message otherwise", async () => {
    const client = createPlantStoreClient({ baseUrl, token: "abc" });
    expect(await client.plants.createOrThrow({ id: 1, name: "Fern" })).toEqual({ name: "Fern" });
    script.push(status(409, {}, { error: ErrorCode.PlantIdConflict, message: "id 1 exists" }));
    const error = await client.plants.createOrThrow({ id: 1, name: "Rose" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlantStoreApiError);
    expect(error).toMatchObject({ status: 409, code: "PlantIdConflict", errorCode: 40901, message: "id 1 exists" });
  });

  it("a status the contract does not declare rejects with PlantStoreApiError", async () => {
    script.push(status(502, {}, { error: 50201, message: "bad gateway" }));
    const client = createPlantStoreClient({ baseUrl, token: "abc" });
    const error = await client.plants.create({ id: 1, name: "a" }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "PlantStoreApiError", status: 502, code: undefined, message: "bad gateway" });
    expect(received).toHaveLength(1);
  });
});

describe("a client derived from the contract", () => {
  it("a route added to the contract is a method that sends its params and returns its declared responses", async () => {
    const extended = initContract().router(
      {
        plants: {
          ...plantStoreContract.plants,
          get: { method: "GET", path: "/plants/:id", responses: { 200: PlantSchema, 404: errorSchemas[404] } },
        },
      },
      { strictStatusCodes: true },
    );
    const client = createContractClient(extended, { baseUrl, token: "abc" });
    script.push(status(404, {}, { error: ErrorCode.NotFound, message: "no plant 9" }));
    const missing = await client.plants.get({ params: { id: "9" } });
    expect(missing).toMatchObject({ status: 404, body: { error: ErrorCode.NotFound } });
    expect(await client.plants.getOrThrow({ params: { id: "7" } })).toEqual({ name: "Fern" });
    expect(await client.plants.createOrThrow({ id: 7, name: "Fern" })).toEqual({ name: "Fern" });
    expect(received.map((r) => `${r.method} ${r.url} ${r.body}`)).toEqual([
      "GET /plants/9 ",
      "GET /plants/7 ",
      'POST /plants {"id":7,"name":"Fern"}',
    ]);
  });

  it("refuses a number id that is not a safe integer instead of sending a rounded one", async () => {
    const client = createPlantStoreClient({ baseUrl, token: "abc" });
    await expect(client.plants.create({ id: 2 ** 53 + 2, name: "x" })).rejects.toThrow(RangeError);
    expect(received).toHaveLength(0);
  });

  it("PlantStoreApiError reads the body with the status's schema: a code the status does not allow has no name", () => {
    const error = new PlantStoreApiError(409, { error: ErrorCode.MissingToken, message: "odd" });
    expect(error).toMatchObject({ status: 409, code: undefined, errorCode: ErrorCode.MissingToken, message: "odd" });
    expect(new PlantStoreApiError(409, "<html>")).toMatchObject({
      code: undefined,
      errorCode: undefined,
      message: "the server answered 409",
    });
    expect(new PlantStoreApiError(409, { error: 40901, message: "taken" }).is(409)).toBe(true);
  });
});

describe("token refresh", () => {
  it("after a 401 calls getToken once with forceRefresh and retries once with the new token", async () => {
    script.push(status(401));
    const requests: boolean[] = [];
    const client = createPlantStoreClient({
      baseUrl,
      getToken: ({ forceRefresh }) => {
        requests.push(forceRefresh);
        return forceRefresh ? "fresh" : "stale";
      },
    });
    expect((await client.plants.create({ id: 1, name: "a" })).status).toBe(200);
    expect(requests).toEqual([false, true]);
    expect(received.map((r) => r.headers.authorization)).toEqual(["Bearer stale", "Bearer fresh"]);
  });

  it("a second 401 after the refresh is returned, not retried again", async () => {
    script.push(status(401), status(401));
    const client = createPlantStoreClient({ baseUrl, getToken: () => "bad" });
    expect((await client.plants.create({ id: 1, name: "a" })).status).toBe(401);
    expect(received).toHaveLength(2);
  });

  it("concurrent calls that all get 401 share one refresh", async () => {
    script.push(status(401), status(401), status(401));
    // The refresh ends only after all three 401s have reached the client (and a macrotask later, after each
    // call has asked for its refresh).
    let unauthorized = 0;
    let allUnauthorized: () => void = () => undefined;
    const threeUnauthorized = new Promise<void>((resolve) => {
      allUnauthorized = resolve;
    });
    let refreshes = 0;
    const client = createPlantStoreClient({
      baseUrl,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if (response.status === 401 && ++unauthorized === 3) setImmediate(allUnauthorized);
        return response;
      },
      getToken: async ({ forceRefresh }) => {
        if (!forceRefresh) return "stale";
        refreshes++;
        await threeUnauthorized;
        return "fresh";
      },
    });
    const results = await Promise.all([1, 2, 3].map((id) => client.plants.create({ id, name: "a" })));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(refreshes).toBe(1);
  });

  it("a fixed token is not retried after a 401", async () => {
    script.push(status(401));
    const client = createPlantStoreClient({ baseUrl, token: "abc" });
    expect((await client.plants.create({ id: 1, name: "a" })).status).toBe(401);
    expect(received).toHaveLength(1);
  });
});

describe("retries", () => {
  it("retries a 503 and a 429, honouring Retry-After, and asks getToken per attempt", async () => {
    script.push(status(503, { "retry-after": "0" }), status(429, { "retry-after": "0" }));
    let calls = 0;
    const client = createPlantStoreClient({ baseUrl, getToken: () => `t${++calls}`, retries: 2 });
    expect((await client.plants.create({ id: 1, name: "a" })).status).toBe(200);
    expect(received.map((r) => r.headers.authorization)).toEqual(["Bearer t1", "Bearer t2", "Bearer t3"]);
    expect(new Set(received.map((r) => r.body)).size).toBe(1);
  });

  it("gives up after `retries` and returns the last 503 (createOrThrow rejects with it)", async () => {
    script.push(...[1, 2, 3, 4, 5, 6].map(() => status(503, {}, { error: 50301, message: "busy" })));
    const client = createPlantStoreClient({ baseUrl, token: "abc", retries: 2, retryDelayMs: 1 });
    const result = await client.plants.create({ id: 1, name: "a" });
    expect(result).toMatchObject({ status: 503, body: { error: 50301, message: "busy" } });
    expect(received).toHaveLength(3);
    await expect(client.plants.createOrThrow({ id: 1, name: "a" })).rejects.toMatchObject({
      name: "PlantStoreApiError",
      status: 503,
      code: "StoreUnavailable",
    });
    expect(received).toHaveLength(6);
  });

  it("does not wait for a Retry-After longer than maxRetryDelayMs", async () => {
    script.push(status(429, { "retry-after": "3600" }));
    const client = createPlantStoreClient({ baseUrl, token: "abc", maxRetryDelayMs: 1000 });
    expect(await client.plants.create({ id: 1, name: "a" })).toMatchObject({ status: 429 });
    expect(received).toHaveLength(1);
  });

  it.each([400, 403, 409, 500])("never retries a %i", async (code) => {
    script.push(status(code));
    const client = createPlantStoreClient({ baseUrl, token: "abc", retryDelayMs: 1 });
    await client.plants.create({ id: 1, name: "a" }).catch(() => undefined);
    expect(received).toHaveLength(1);
  });

  it("retries a network error (connection refused) and rejects with it after the last retry", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    let attempts = 0;
    const client = createPlantStoreClient({
      baseUrl: deadUrl,
      getToken: () => `t${++attempts}`,
      retries: 2,
      retryDelayMs: 1,
    });
    await expect(client.plants.create({ id: 1, name: "a" })).rejects.toThrow(TypeError);
    expect(attempts).toBe(3);
  });
});

/** A client of the fetch fake; `answered` settles once the fake has answered the first request. */
function clientOfFake(options: Partial<PlantStoreClientOptions> = {}) {
  const fake = createFakePlantStore();
  const sent = { requests: 0 };
  let firstAnswered: () => void = () => undefined;
  const answered = new Promise<void>((resolve) => {
    firstAnswered = resolve;
  });
  const client = createPlantStoreClient({
    baseUrl: "https://plants.test",
    token: "abc",
    ...options,
    fetch: async (input, init) => {
      sent.requests++;
      try {
        return await fake.fetch(input, init);
      } finally {
        firstAnswered();
      }
    },
  });
  return { fake, client, sent, answered };
}

// Waits and deadlines on a fake clock: each test moves it and checks what happened by then.
describe("the call's time left, stated to the server", () => {
  it("sends what timeoutMs has left in X-Request-Timeout-Ms on every attempt, less on the retry", async () => {
    script = [status(503, { "retry-after": "0" })];
    const client = createPlantStoreClient({ baseUrl, token: "abc", timeoutMs: 5_000 });
    expect((await client.plants.create({ id: 1, name: "a" })).status).toBe(200);
    const stated = received.map((request) => Number(request.headers["x-request-timeout-ms"]));
    expect(received).toHaveLength(2);
    expect(stated.every((ms) => Number.isInteger(ms) && ms > 0 && ms <= 5_000)).toBe(true);
    expect(stated[1]).toBeLessThanOrEqual(stated[0]!);
  });

  it("a per-call timeoutMs is the one stated; a call with no timeout (0) states none", async () => {
    const client = createPlantStoreClient({ baseUrl, token: "abc", timeoutMs: 0 });
    await client.plants.create({ id: 1, name: "a" }, { timeoutMs: 250 });
    await client.plants.create({ id: 2, name: "b" });
    expect(Number(received[0]!.headers["x-request-timeout-ms"])).toBeLessThanOrEqual(250);
    expect(received[1]!.headers["x-request-timeout-ms"]).toBeUndefined();
  });
});

describe("waits and timeouts", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });

  it("waits the Retry-After seconds before the retry, and no longer", async () => {
    const { fake, client, sent, answered } = clientOfFake();
    fake.failNext(1, { status: 503, retryAfterSeconds: 2 });
    const call = client.plants.create({ id: 1, name: "a" });
    await answered;
    await vi.advanceTimersByTimeAsync(1_999);
    expect(sent.requests).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect((await call).status).toBe(200);
    expect(sent.requests).toBe(2);
  });

  it("without Retry-After, backs off between half and all of retryDelayMs", async () => {
    const { fake, client, sent, answered } = clientOfFake({ retryDelayMs: 400 });
    fake.failNext(1, { disconnect: true });
    const call = client.plants.create({ id: 1, name: "a" });
    await answered;
    await vi.advanceTimersByTimeAsync(199);
    expect(sent.requests).toBe(1);
    await vi.advanceTimersByTimeAsync(201);
    expect((await call).status).toBe(200);
    expect(sent.requests).toBe(2);
  });

  it("rejects with PlantStoreTimeoutError when the server does not answer within timeoutMs", async () => {
    const { fake, client } = clientOfFake({ timeoutMs: 100 });
    fake.failNext(1, { delayMs: 60_000 });
    const outcome = client.plants.create({ id: 1, name: "a" }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(100);
    const error = await outcome;
    expect(error).toBeInstanceOf(PlantStoreTimeoutError);
    expect(error).toMatchObject({ timeoutMs: 100 });
  });

  it("the timeout also cuts a retry wait short", async () => {
    const { fake, client, sent, answered } = clientOfFake({ timeoutMs: 100 });
    fake.failNext(1, { status: 503, retryAfterSeconds: 5 });
    const outcome = client.plants.create({ id: 1, name: "a" }).catch((e: unknown) => e);
    await answered;
    await vi.advanceTimersByTimeAsync(100);
    expect(await outcome).toBeInstanceOf(PlantStoreTimeoutError);
    expect(sent.requests).toBe(1);
  });

  it("a per-call timeoutMs overrides the client's", async () => {
    const { fake, client } = clientOfFake({ timeoutMs: 60_000 });
    fake.failNext(1, { delayMs: 60_000 });
    const outcome = client.plants.create({ id: 1, name: "a" }, { timeoutMs: 50 }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(50);
    expect(await outcome).toMatchObject({ name: "PlantStoreTimeoutError", timeoutMs: 50 });
  });
});

describe("abort", () => {
  it("rejects with the signal's reason when the caller aborts a request in flight", async () => {
    script.push(never);
    const arrived = new Promise<void>((resolve) => {
      onReceived = resolve;
    });
    const client = createPlantStoreClient({ baseUrl, token: "abc" });
    const controller = new AbortController();
    const call = client.plants.create({ id: 1, name: "a" }, { signal: controller.signal });
    await arrived;
    controller.abort(new Error("user left"));
    await expect(call).rejects.toThrow("user left");
  });

  it("an already-aborted signal sends nothing", async () => {
    const client = createPlantStoreClient({ baseUrl, token: "abc" });
    await expect(client.plants.create({ id: 1, name: "a" }, { signal: AbortSignal.abort() })).rejects.toThrow(/abort/i);
    expect(received).toHaveLength(0);
  });
});
