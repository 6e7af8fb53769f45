import { connect } from "node:net";
import { ErrorCode } from "@plant-store/contract";
import { describe, expect, it } from "vitest";
import { type ListeningTestApp, startTestApp } from "./support/test-server.js";

let t: ListeningTestApp;

/** Sends raw bytes and resolves with everything the server wrote before it closed the connection. */
function rawExchange(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      received += chunk;
    });
    socket.on("end", () => resolve(received));
    socket.on("error", reject);
  });
}

describe("X-Request-Id on every response", () => {
  it("a 404 for a path outside the contract carries the caller's X-Request-Id", async () => {
    t = await startTestApp({ store: "memory", listen: true });
    const res = await fetch(`${t.url}/nowhere`, { headers: { "X-Request-Id": "trace-404" } });
    expect(res.status).toBe(404);
    expect(res.headers.get("x-request-id")).toBe("trace-404");
    expect(await res.json()).toEqual({ error: ErrorCode.NotFound, message: "no route for GET /nowhere" });
  });

  it("a connection-level 400 for bytes that are not HTTP carries a new id and the contract's Error body", async () => {
    t = await startTestApp({ store: "memory", listen: true });
    const answer = await rawExchange(t.url, "NOT HTTP AT ALL\r\n\r\n");
    const [head = "", body] = answer.split("\r\n\r\n");
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(head).toMatch(/\r\nX-Request-Id: [0-9a-f-]{36}\r\n/);
    expect(JSON.parse(body ?? "")).toEqual({
      error: ErrorCode.MalformedRequest,
      message: "request is not valid HTTP/1.1",
    });
  });
});
