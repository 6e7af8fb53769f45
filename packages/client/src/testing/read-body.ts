import type { IncomingMessage } from "node:http";

/** The body's bytes, "too-large" past `limitBytes` (announced or counted), or "incomplete" when the client gave up. */
export function readBody(req: IncomingMessage, limitBytes: number): Promise<Uint8Array | "too-large" | "incomplete"> {
  if (Number(req.headers["content-length"] ?? 0) > limitBytes) return Promise.resolve("too-large");
  // A late answer (failNext delayMs) may find the client gone already.
  if (req.destroyed) return Promise.resolve("incomplete");
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: Uint8Array | "too-large" | "incomplete") => {
      req.removeAllListeners("data");
      resolve(result);
    };
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) finish("too-large");
      else chunks.push(chunk);
    });
    req.on("end", () => finish(Buffer.concat(chunks)));
    req.on("aborted", () => finish("incomplete"));
    req.on("error", () => finish("incomplete"));
    // After "end" this changes nothing (a promise settles once); before it, the connection went.
    req.on("close", () => finish("incomplete"));
  });
}
