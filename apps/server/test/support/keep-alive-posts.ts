import { type Agent, request } from "node:http";

/** How one POST ended, from the client's side. */
export type PostOutcome =
  | { kind: "answered"; status: number; connection: string | undefined; body: string }
  /** The connection could not be set up (refused, or reset while connecting): nothing was sent. */
  | { kind: "refused"; code: string | undefined }
  /** Sent, then the connection broke before a whole answer arrived (reset, or closed without an answer). */
  | { kind: "broken"; code: string | undefined; message: string };

export interface PostRecord {
  id: number;
  /** When the request was handed to the client (epoch ms). */
  startedAt: number;
  /** When its last byte was handed to the kernel (epoch ms); unset when it never was. */
  writtenAt: number | undefined;
  /** Whether it went out on a keep-alive connection that had already carried a request. */
  reusedConnection: boolean;
  /** The connection's local port once connected, which the server sees as the remote port. */
  clientPort: number | undefined;
  /** When the answer or the failure arrived (epoch ms). */
  endedAt: number;
  outcome: PostOutcome;
}

/** POSTs `body` through `agent` (so on one of its keep-alive connections) and records how it ended. */
export function postThrough(
  agent: Agent,
  url: string,
  headers: Record<string, string>,
  id: number,
  body: string,
): Promise<PostRecord> {
  const startedAt = Date.now();
  let writtenAt: number | undefined;
  let clientPort: number | undefined;
  return new Promise((resolve) => {
    const length = Buffer.byteLength(body);
    const req = request(url, { method: "POST", agent, headers: { ...headers, "content-length": length } });
    // The first of answer and failure counts; resolving again is a no-op.
    const settle = (outcome: PostOutcome) => {
      const reusedConnection = req.reusedSocket;
      resolve({ id, startedAt, writtenAt, reusedConnection, clientPort, endedAt: Date.now(), outcome });
    };
    req.once("finish", () => {
      writtenAt = Date.now();
    });
    req.once("socket", (socket) => {
      if (socket.connecting) socket.once("connect", () => (clientPort = socket.localPort));
      else clientPort = socket.localPort;
    });
    req.on("error", (error: NodeJS.ErrnoException) => {
      settle(
        error.syscall === "connect"
          ? { kind: "refused", code: error.code }
          : { kind: "broken", code: error.code, message: error.message },
      );
    });
    req.once("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.once("end", () =>
        settle({ kind: "answered", status: res.statusCode ?? 0, connection: res.headers.connection, body: text }),
      );
      res.on("error", (error: NodeJS.ErrnoException) => {
        settle({ kind: "broken", code: error.code, message: error.message });
      });
    });
    req.end(body);
  });
}
