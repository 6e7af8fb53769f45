import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type ServerProcess, serverProcesses } from "../support/server-process.js";
import { TEST_SECRET, testToken } from "../support/tokens.js";
import { contractViolation } from "./support/contract-response.js";
import {
  openRawConnection,
  parseResponses,
  type RawConnection,
  type RawResponse,
  rawCreateRequest,
} from "./support/raw-http.js";
import { tempDir } from "@plant-store/test-support/temp-dir";

/** How the reliability suites run the built server: on loopback, every response checked against the contract. */
const RELIABILITY_ENV = { HOST: "127.0.0.1", JWT_SECRET: TEST_SECRET, VALIDATE_RESPONSES: "true" };

// Small timeouts through the environment, exactly as an operator would set them, so the suite runs in
// seconds; production defaults are in docs/configuration.md.
const HEADERS_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 2_000;
const KEEP_ALIVE_TIMEOUT_MS = 1_000;
const BODY_LIMIT_BYTES = 64 * 1024;
const LONG = process.env.RELIABILITY_LONG === "1";
const SLOWLORIS_CONNECTIONS = LONG ? 500 : 50;
const IDLE_CONNECTIONS = LONG ? 4_000 : 1_000;

const servers = serverProcesses(RELIABILITY_ENV, { keepOutputChars: 64 * 1024 });
const dir = tempDir("plant-store-abuse-");
let server: ServerProcess;
const token = testToken();
const auth = { Authorization: `Bearer ${token}` };
let nextId = 1n;

beforeAll(async () => {
  server = await servers.start({
    DATABASE_URL: join(dir, "plants.db"),
    HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
    BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES),
  });
});

/** An ordinary client's create on its own connection; resolves with the status. */
async function normalCreate(): Promise<number> {
  const id = nextId++;
  const res = await fetch(`${server.baseUrl}/plants`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json", connection: "close" },
    body: `{"id": ${id}, "name": "plant ${id}"}`,
  });
  await res.arrayBuffer();
  return res.status;
}

/** Keeps ordinary creates going one after another until `done` settles; returns every status seen. */
async function normalTrafficUntil(done: Promise<unknown>): Promise<number[]> {
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  const statuses: number[] = [];
  while (!finished) statuses.push(await normalCreate());
  return statuses;
}

/** Waits for every connection to be closed, failing (not hanging) after `deadlineMs`. */
async function allClosed(connections: RawConnection[], deadlineMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`connections still open after ${deadlineMs} ms`)), deadlineMs);
  });
  try {
    await Promise.race([Promise.all(connections.map((connection) => connection.closed)), deadline]);
  } finally {
    clearTimeout(timer);
    for (const connection of connections) if (!connection.socket.destroyed) connection.destroy();
  }
}

function expectContractError(response: RawResponse | undefined, status: number, code: number) {
  expect(response?.status).toBe(status);
  expect(contractViolation(response!.status, response!.body)).toBeUndefined();
  expect(JSON.parse(response!.body).error).toBe(code);
}

/** Opens `count` connections, calling `onOpen` on each as soon as it is established. */
async function openMany(
  count: number,
  onOpen: (connection: RawConnection) => void = () => undefined,
): Promise<RawConnection[]> {
  const connections: RawConnection[] = [];
  // In batches, so the listen backlog never overflows and every connect succeeds at once.
  for (let start = 0; start < count; start += 100) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(100, count - start) }, () => openRawConnection(server.port)),
    );
    for (const connection of batch) onOpen(connection);
    connections.push(...batch);
  }
  return connections;
}

describe("connection abuse against the built server (loopback, bounded, stops by itself)", () => {
  it(`${SLOWLORIS_CONNECTIONS} slowloris connections sending headers a byte at a time get 408 and are closed by the headers timeout while normal requests keep succeeding`, {
    timeout: 60_000,
  }, async () => {
    // Headers that would take far longer than the timeout to finish, one byte every 100 ms from the
    // moment each connection is established.
    const headers = `POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${"a".repeat(600)}\r\n\r\n`;
    const drips: NodeJS.Timeout[] = [];
    const slow = await openMany(SLOWLORIS_CONNECTIONS, (connection) => {
      let sent = 0;
      const drip = setInterval(() => {
        if (connection.socket.destroyed || sent >= headers.length) clearInterval(drip);
        else connection.socket.write(headers[sent++]!);
      }, 100);
      drips.push(drip);
    });
    const openFor: number[] = [];
    for (const connection of slow) void connection.closed.then(() => openFor.push(Date.now() - connection.openedAt));
    try {
      const everyoneClosed = allClosed(slow, 20_000);
      const statuses = await normalTrafficUntil(everyoneClosed);
      await everyoneClosed;
      expect(statuses.length).toBeGreaterThan(0);
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
    } finally {
      for (const drip of drips) clearInterval(drip);
    }
    for (const connection of slow) {
      expect(connection.closedByServer()).toBe(true);
      const { responses } = parseResponses(connection.received());
      expect(responses).toHaveLength(1);
      expectContractError(responses[0], 408, 40801);
    }
    // Not closed for any other reason: none went before the headers timeout. A real clock: the timeout is Node's,
    // in the server process, and when it fires is what is under test.
    expect(Math.min(...openFor)).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
  });

  it("a body sent slower than the request timeout is cut off with 408 and stores nothing", {
    timeout: 30_000,
  }, async () => {
    const id = nextId++;
    const body = `{"id": ${id}, "name": "slow body", "tag": "${"x".repeat(60)}"}`;
    const connection = await openRawConnection(server.port);
    const request = rawCreateRequest(body, auth);
    const headerEnd = request.indexOf("\r\n\r\n") + 4;
    connection.socket.write(request.slice(0, headerEnd));
    let sent = headerEnd;
    const drip = setInterval(() => {
      if (connection.socket.destroyed || sent >= request.length) clearInterval(drip);
      else connection.socket.write(request[sent++]!);
    }, 100);
    try {
      const statuses = await normalTrafficUntil(allClosed([connection], 15_000));
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
    } finally {
      clearInterval(drip);
    }
    expect(connection.closedByServer()).toBe(true);
    expect(sent).toBeLessThan(request.length);
    const [response] = await connection.responses(1, 1);
    expectContractError(response, 408, 40801);
    // The id is still free: the cut-off create stored nothing, so a different plant under it is a 200.
    const res = await fetch(`${server.baseUrl}/plants`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: `{"id": ${id}, "name": "arrived in time"}`,
    });
    expect(res.status).toBe(200);
  });

  it("headers over the size limit get 431 with the contract's JSON Error and the connection is closed", async () => {
    const connection = await openRawConnection(server.port);
    connection.socket.write(rawCreateRequest('{"id": 1, "name": "x"}', { ...auth, "X-Big": "b".repeat(20_000) }));
    const [response] = await connection.responses(1);
    expectContractError(response, 431, 43101);
    expect(response!.headers.connection).toBe("close");
    await allClosed([connection], 5_000);
    expect(connection.closedByServer()).toBe(true);
    expect(await normalCreate()).toBe(200);
  });

  it("a chunked body over the limit gets 413 with Connection: close and the server closes the connection cleanly", async () => {
    const connection = await openRawConnection(server.port);
    const chunk = "x".repeat(BODY_LIMIT_BYTES * 3);
    connection.socket.write(
      `POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
        `Transfer-Encoding: chunked\r\n\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`,
    );
    const [response] = await connection.responses(1);
    expectContractError(response, 413, 41301);
    // Without it a keep-alive client would send its next request into a connection about to be reset.
    expect(response!.headers.connection).toBe("close");
    await allClosed([connection], 5_000);
    expect(connection.closedByServer()).toBe(true);
    expect(await normalCreate()).toBe(200);
  });

  it("bytes that are not HTTP get 400 malformed_request as JSON and the connection is closed", async () => {
    const connection = await openRawConnection(server.port);
    connection.socket.write("HELLO /plants SMTP/9\r\n\r\n");
    const [response] = await connection.responses(1);
    expectContractError(response, 400, 40005);
    await allClosed([connection], 5_000);
    expect(await normalCreate()).toBe(200);
  });

  it(`${IDLE_CONNECTIONS} idle keep-alive connections do not stop normal requests and are all reclaimed`, {
    timeout: 90_000,
  }, async () => {
    // Half make one request as soon as they are connected and keep the connection open; half never
    // send a byte.
    const used = await openMany(IDLE_CONNECTIONS / 2, (connection) =>
      connection.socket.write("GET /nothing-here HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
    );
    const silent = await openMany(IDLE_CONNECTIONS / 2);
    const idle = [...used, ...silent];
    for (const response of await Promise.all(used.map((connection) => connection.responses(1, 20_000)))) {
      expectContractError(response[0], 404, 40401);
      expect(response[0]!.headers.connection).toBe("keep-alive");
    }
    const everyoneClosed = allClosed(idle, 30_000);
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push(await normalCreate());
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    await everyoneClosed;
    expect(idle.filter((connection) => !connection.closedByServer())).toHaveLength(0);
    for (const connection of used) expect(connection.received().length).toBeGreaterThan(0);
    for (const connection of silent) {
      const [response] = await connection.responses(1, 1);
      expectContractError(response, 408, 40801);
    }
    expect(server.alive()).toBe(true);
    expect(await normalCreate()).toBe(200);
  });

  it("pipelined requests on one connection all get their own correct answer, in order", async () => {
    const a = nextId++;
    const b = nextId++;
    const requests: [string, number, unknown][] = [
      [rawCreateRequest(`{"id": ${a}, "name": "A", "tag": "first"}`, auth), 200, { name: "A", tag: "first" }],
      [rawCreateRequest(`{"id": ${a}, "name": "A", "tag": "first"}`, auth), 200, { name: "A", tag: "first" }],
      [rawCreateRequest(`{"id": ${a}, "name": "not A"}`, auth), 409, 40901],
      [rawCreateRequest(`{"id": ${b}, "name": "no token, so never stored"}`), 401, 40101],
      [rawCreateRequest(`{"id": ${b}, "name": `, auth), 400, 40003],
      [rawCreateRequest(`{"id": "${b}", "name": "B"}`, auth), 400, 40004],
      ["GET /elsewhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 404, 40401],
      [rawCreateRequest(`{"id": ${b}, "name": "B"}`, auth), 200, { name: "B" }],
      [rawCreateRequest(`{"id": ${b}, "name": "${"B".repeat(BODY_LIMIT_BYTES)}"}`, auth), 413, 41301],
    ];
    const connection = await openRawConnection(server.port);
    connection.socket.write(requests.map(([bytes]) => bytes).join(""));
    const responses = await connection.responses(requests.length);
    requests.forEach(([, status, expected], index) => {
      const response = responses[index]!;
      expect({ index, status: response.status }).toEqual({ index, status });
      expect(contractViolation(response.status, response.body)).toBeUndefined();
      const body = JSON.parse(response.body);
      expect(status === 200 ? body : body.error).toEqual(expected);
    });
    connection.destroy();
  });

  it("a create pipelined before malformed bytes gets its 200 first, then the 400, so no client misreads a stored create as failed", async () => {
    const id = nextId++;
    const connection = await openRawConnection(server.port);
    connection.socket.write(`${rawCreateRequest(`{"id": ${id}, "name": "before garbage"}`, auth)}GARBAGE\r\n\r\n`);
    const [created, rejected] = await connection.responses(2);
    expect([created!.status, JSON.parse(created!.body)]).toEqual([200, { name: "before garbage" }]);
    expectContractError(rejected, 400, 40005);
    await allClosed([connection], 5_000);
  });

  it("a bad chunk size inside a body gets 400 malformed_request at once, not a 408 at the request timeout", async () => {
    const connection = await openRawConnection(server.port);
    connection.socket.write(
      `POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
        "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
    );
    const [response] = await connection.responses(1);
    expectContractError(response, 400, 40005);
    await allClosed([connection], 5_000);
  });

  it("100 creates written back to back in arbitrary fragments on one connection are answered in order", {
    timeout: 30_000,
  }, async () => {
    const ids = Array.from({ length: 100 }, () => nextId++);
    const bytes = Buffer.from(
      ids.map((id) => rawCreateRequest(`{"id": ${id}, "name": "pipelined ${id}"}`, auth)).join(""),
    );
    const connection = await openRawConnection(server.port);
    // Fragments of 1 to 700 bytes, cut across request boundaries, each written in its own turn.
    let offset = 0;
    let seed = 7;
    while (offset < bytes.length) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      const size = 1 + (seed % 700);
      connection.socket.write(bytes.subarray(offset, offset + size));
      offset += size;
      await new Promise((resolve) => setImmediate(resolve));
    }
    const responses = await connection.responses(ids.length);
    expect(responses.map((response) => [response.status, JSON.parse(response.body)])).toEqual(
      ids.map((id) => [200, { name: `pipelined ${id}` }]),
    );
    connection.destroy();
  });
});
