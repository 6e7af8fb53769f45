import { request } from "node:http";

export interface SlowRequest {
  /** Resolves once the server has read the headers and is handling the request (it sent 100 Continue). */
  inFlight: Promise<void>;
  /** Sends the rest of the body. */
  finish: () => void;
  /** Gives up: closes the connection without sending the rest. */
  abort: () => void;
  /** The response (status, headers, body text); rejects if the server cuts the connection. */
  response: Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>;
}

/**
 * A POST whose body arrives slowly: the headers and the first half of the body go out at once, the rest
 * only when the test calls finish(). `Expect: 100-continue` tells the test exactly when the server has
 * started handling it, so "in flight" is a fact rather than a guess about timing.
 */
export function slowPost(url: string, headers: Record<string, string>, body: string): SlowRequest {
  const bytes = Buffer.from(body);
  const half = Math.floor(bytes.length / 2);
  const req = request(url, {
    method: "POST",
    headers: { ...headers, "content-length": String(bytes.length), expect: "100-continue" },
  });
  const inFlight = new Promise<void>((resolve, reject) => {
    req.once("continue", () => {
      req.write(bytes.subarray(0, half), () => resolve());
    });
    req.once("error", reject);
  });
  const response = new Promise<Awaited<SlowRequest["response"]>>((resolve, reject) => {
    req.once("error", reject);
    req.once("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.once("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.once("error", reject);
    });
  });
  // The test awaits one of these; the other must not surface as an unhandled rejection.
  inFlight.catch(() => undefined);
  response.catch(() => undefined);
  req.flushHeaders();
  return { inFlight, finish: () => req.end(bytes.subarray(half)), abort: () => req.destroy(), response };
}
