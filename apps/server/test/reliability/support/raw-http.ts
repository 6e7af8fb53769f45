import { connect, type Socket } from "node:net";

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Splits the bytes a server sent on one connection into complete HTTP/1.1 responses (Content-Length
 * framed, which is how this server frames every response). Returns the complete ones and the rest.
 */
export function parseResponses(bytes: Buffer): { responses: RawResponse[]; rest: Buffer } {
  const responses: RawResponse[] = [];
  let offset = 0;
  for (;;) {
    const headEnd = bytes.indexOf("\r\n\r\n", offset);
    if (headEnd === -1) break;
    const [statusLine, ...headerLines] = bytes.subarray(offset, headEnd).toString("latin1").split("\r\n");
    const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine ?? "")?.[1]);
    if (!Number.isInteger(status)) throw new Error(`not an HTTP/1.1 status line: ${statusLine}`);
    const headers: Record<string, string> = {};
    for (const line of headerLines) {
      const colon = line.indexOf(":");
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    if (headers["transfer-encoding"] !== undefined) throw new Error("chunked responses are not expected here");
    const length = Number(headers["content-length"] ?? 0);
    const bodyStart = headEnd + 4;
    if (bytes.length < bodyStart + length) break;
    responses.push({ status, headers, body: bytes.subarray(bodyStart, bodyStart + length).toString("utf8") });
    offset = bodyStart + length;
  }
  return { responses, rest: bytes.subarray(offset) };
}

/** A raw TCP connection to the server that records everything received and when it closed. */
export interface RawConnection {
  socket: Socket;
  /** Date.now() when the connection was established. */
  openedAt: number;
  received: () => Buffer;
  /** Resolves when the connection is closed, whoever closed it. */
  closed: Promise<void>;
  /** True once the connection is closed and it was not `destroy()` here that closed it. */
  closedByServer: () => boolean;
  destroy: () => void;
  /** Resolves with the first `count` responses, or rejects after `timeoutMs` or on close before them. */
  responses: (count: number, timeoutMs?: number) => Promise<RawResponse[]>;
}

export function openRawConnection(port: number): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = Buffer.alloc(0);
    let destroyedHere = false;
    const waiters = new Set<() => void>();
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      for (const wake of waiters) wake();
    });
    // A reset while we still write (the server closed on us) is one of the outcomes under test.
    socket.on("error", () => undefined);
    const closed = new Promise<void>((done) =>
      socket.once("close", () => {
        for (const wake of waiters) wake();
        done();
      }),
    );
    const responses = (count: number, timeoutMs = 10_000) =>
      new Promise<RawResponse[]>((done, fail) => {
        const timer = setTimeout(
          () => finish(new Error(`fewer than ${count} responses within ${timeoutMs} ms`)),
          timeoutMs,
        );
        const check = () => {
          const parsed = parseResponses(received).responses;
          if (parsed.length >= count) finish(undefined, parsed.slice(0, count));
          else if (socket.destroyed)
            finish(new Error(`connection closed after ${parsed.length} of ${count} responses`));
        };
        const finish = (error?: Error, result?: RawResponse[]) => {
          clearTimeout(timer);
          waiters.delete(check);
          if (error) fail(error);
          else done(result!);
        };
        waiters.add(check);
        check();
      });
    socket.once("connect", () =>
      resolve({
        socket,
        openedAt: Date.now(),
        received: () => received,
        closed,
        closedByServer: () => socket.destroyed && !destroyedHere,
        destroy: () => {
          destroyedHere = true;
          socket.destroy();
        },
        responses,
      }),
    );
    socket.once("error", reject);
  });
}

/** The bytes of one POST /plants request, framed with Content-Length. */
export function rawCreateRequest(body: string, headers: Record<string, string> = {}): string {
  const lines = [
    "POST /plants HTTP/1.1",
    "Host: 127.0.0.1",
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return `${lines.join("\r\n")}\r\n\r\n${body}`;
}
