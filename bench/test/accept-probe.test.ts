import { describe, expect, it } from "vitest";
import { acceptProbe } from "../src/accept-probe.js";

// docs/performance.md#overload explains the open loop's misses by this: a Node server takes one new connection
// per event-loop turn. If a Node release accepts more per turn again, this fails and that section needs rewriting.
describe("acceptProbe", () => {
  it("sees libuv accept every connection opened at once, one per event-loop turn", async () => {
    const probe = await acceptProbe(200);
    expect(probe.libuv).toBe(process.versions.uv);
    expect(probe.connections).toBe(200);
    expect(probe.mostInOneTurn).toBe(1);
    expect(probe.turnsAccepting).toBe(200);
  });
});
