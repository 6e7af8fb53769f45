import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import { closeServer, listenOnFreePort } from "@plant-store/test-support/close-server";

/** What the proxy does with the n-th request (0-based). */
export type ProxyBehaviour = (index: number) => "forward" | "unavailable" | "hold";

export interface FaultProxy {
  url: string;
  /** Each request that reached the proxy: its body and what the proxy did with it. */
  seen: { body: string; action: ReturnType<ProxyBehaviour> }[];
  close(): Promise<void>;
}

function forward(target: URL, req: IncomingMessage, body: Buffer, res: ServerResponse): void {
  const upstream = request(
    { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on("error", () => res.writeHead(502).end());
  upstream.end(body);
}

/**
 * A real HTTP proxy on 127.0.0.1 in front of `targetUrl` that can answer 503 (Retry-After: 1) or hold a
 * request unanswered instead of forwarding it: faults injected between a real client and a real server.
 */
export async function startFaultProxy(targetUrl: string, behaviour: ProxyBehaviour): Promise<FaultProxy> {
  const target = new URL(targetUrl);
  const seen: FaultProxy["seen"] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const action = behaviour(seen.length);
      seen.push({ body: body.toString("utf8"), action });
      if (action === "forward") forward(target, req, body, res);
      else if (action === "unavailable") {
        res
          .writeHead(503, { "content-type": "application/json", "retry-after": "1" })
          .end('{"error":50301,"message":"try again shortly"}');
      }
    });
  });
  const port = await listenOnFreePort(server);
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => closeServer(server),
  };
}
