import { createServer, type IncomingMessage, request, ServerResponse } from "node:http";
import { listenOnLoopback } from "@plant-store/test-support/loopback-server";
import express from "express";
import { describe, expect, it } from "vitest";
import { Lifecycle } from "../../src/process-state/lifecycle.js";
import { closeConnectionsOnShutdown } from "../../src/runtime-internals/close-connections-on-shutdown.js";

/** GET / on `server`, resolving with the answer's status and Connection header; the server closes when the test ends. */
async function get(server: ReturnType<typeof createServer>) {
  const port = await listenOnLoopback(server);
  return await new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
    request({ host: "127.0.0.1", port, path: "/" }, (res: IncomingMessage) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
    })
      .on("error", reject)
      .end();
  });
}

describe("closeConnectionsOnShutdown: writeHead on the app's response prototype (runtime internals)", () => {
  it("node:http still writes an implicit head (res.end() alone) through writeHead, which the hook relies on", async () => {
    const calls: number[] = [];
    class Recording extends ServerResponse {}
    const writeHead = ServerResponse.prototype.writeHead as (
      this: ServerResponse,
      ...args: unknown[]
    ) => ServerResponse;
    Recording.prototype.writeHead = function (this: ServerResponse, ...args: unknown[]) {
      calls.push(args[0] as number);
      return writeHead.apply(this, args);
    } as ServerResponse["writeHead"];
    const server = createServer({ ServerResponse: Recording }, (_req, res) => res.end("ok"));
    expect(await get(server)).toMatchObject({ status: 200 });
    expect(calls).toEqual([200]);
  });

  it("answers written after shutdown began say Connection: close, those before do not, whatever writes the head", async () => {
    const lifecycle = new Lifecycle();
    const app = express();
    closeConnectionsOnShutdown(app, lifecycle);
    app.get("/", (_req, res) => {
      res.end("implicit head");
    });
    expect((await get(createServer(app))).connection).not.toBe("close");
    lifecycle.beginShutdown();
    expect(await get(createServer(app))).toEqual({ status: 200, connection: "close" });
  });
});
