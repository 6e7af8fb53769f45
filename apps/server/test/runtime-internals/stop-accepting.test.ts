import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent } from "node:http";
import { describe, expect, it } from "vitest";
import { stopAccepting } from "../../src/runtime-internals/stop-accepting.js";

/** A server answering every request, one keep-alive agent with one socket, and a GET that reports its socket. */
async function keepAliveSetup() {
  const server = createServer((_req, res) => res.end("ok"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const get = () =>
    new Promise<{ status: number; socketReused: boolean }>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, agent, path: "/" }, (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, socketReused: req.reusedSocket }));
      });
      req.on("error", reject);
      req.end();
    });
  return { server, agent, get };
}

describe("stopAccepting: net.Server's close() on an http.Server (runtime internals)", () => {
  it("http.Server is still a net.Server whose own close() destroys idle keep-alive connections (why the trick exists)", async () => {
    const { server, agent, get } = await keepAliveSetup();
    await get();
    const idle = [...Object.values(agent.freeSockets)].flat()[0];
    expect(idle).toBeDefined();
    const closedByServer = new Promise<void>((resolve) => idle!.once("close", () => resolve()));
    server.close();
    await closedByServer;
    agent.destroy();
  });

  it("stops accepting but leaves an idle keep-alive connection open, and a request sent on it is answered", async () => {
    const { server, agent, get } = await keepAliveSetup();
    await get();
    const drained = stopAccepting(server);
    // The idle connection survives the close: the next request goes on it and is answered.
    expect(await get()).toEqual({ status: 200, socketReused: true });
    agent.destroy();
    await drained;
    expect(server.listening).toBe(false);
  });
});
