import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { responseInFlight } from "../../src/runtime-internals/socket-response.js";

describe("responseInFlight (node:http's private socket._httpMessage)", () => {
  it("finds the response being sent on a socket, and none once it is finished", async () => {
    const seen: { during: boolean; after?: boolean }[] = [];
    const server = createServer((req, res) => {
      const entry: { during: boolean; after?: boolean } = { during: responseInFlight(req.socket) === res };
      seen.push(entry);
      res.end("ok", () => {
        entry.after = responseInFlight(req.socket) === undefined;
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {
        headers: { Connection: "close" },
      });
      expect(await response.text()).toBe("ok");
      // If a Node release renames the field, pipelined connection errors would be written into the middle of
      // a response: this fails first.
      expect(seen).toEqual([{ during: true, after: true }]);
    } finally {
      server.close();
    }
  });
});
