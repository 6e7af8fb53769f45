import { describe, expect, it } from "vitest";
import { KeySetFetchGate, KeySetFetchLimitError } from "../src/auth/key-set-fetch-gate.js";

/** A gate at `limit` per minute over a clock the test moves, and fetches the test finishes by hand. */
function gateOf(limit: number) {
  let now = 1_000_000;
  const gate = new KeySetFetchGate<string>(limit, () => now);
  const started: ((keys: string) => void)[] = [];
  const failed: ((error: Error) => void)[] = [];
  const fetch = () =>
    new Promise<string>((resolve, reject) => {
      started.push(resolve);
      failed.push(reject);
    });
  return {
    lookup: () => gate.fetch(fetch),
    started: () => started.length,
    finish: (keys: string) => started.at(-1)!(keys),
    fail: () => failed.at(-1)!(new Error("connection refused")),
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe("KeySetFetchGate", () => {
  it("shares one running fetch among every lookup that arrives while it runs, counting it once", async () => {
    const gate = gateOf(2);
    const lookups = [gate.lookup(), gate.lookup(), gate.lookup()];
    expect(gate.started()).toBe(1);
    gate.finish("keys-1");
    expect(await Promise.all(lookups)).toEqual(["keys-1", "keys-1", "keys-1"]);

    const next = gate.lookup();
    expect(gate.started()).toBe(2);
    gate.finish("keys-2");
    expect(await next).toBe("keys-2");
  });

  it("refuses a lookup past the limit without fetching, until the oldest fetch of the minute is a minute old", async () => {
    const gate = gateOf(2);
    for (const keys of ["a", "b"]) {
      const lookup = gate.lookup();
      gate.finish(keys);
      await lookup;
      gate.advance(20_000);
    }
    await expect(gate.lookup()).rejects.toThrow(KeySetFetchLimitError);
    expect(gate.started()).toBe(2);

    gate.advance(19_999);
    await expect(gate.lookup()).rejects.toThrow("the key set was fetched 2 times in the last minute");
    gate.advance(1);
    const third = gate.lookup();
    expect(gate.started()).toBe(3);
    gate.finish("c");
    expect(await third).toBe("c");
    await expect(gate.lookup()).rejects.toThrow(KeySetFetchLimitError);
  });

  it("counts a failed fetch, and lets the next lookup start another once it has failed", async () => {
    const gate = gateOf(2);
    const both = [gate.lookup(), gate.lookup()];
    gate.fail();
    for (const lookup of both) await expect(lookup).rejects.toThrow("connection refused");
    const retried = gate.lookup();
    expect(gate.started()).toBe(2);
    gate.finish("keys");
    expect(await retried).toBe("keys");
    await expect(gate.lookup()).rejects.toThrow(KeySetFetchLimitError);
  });
});
