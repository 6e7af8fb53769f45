import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { turnBatched } from "../src/turn-batched-destination.js";

function recordingTarget() {
  const writes: string[] = [];
  return { writes, target: { write: (text: string) => void writes.push(text) } };
}

describe("turnBatched", () => {
  it("writes the lines of one event-loop turn as one write, in order, once the turn is over", async () => {
    const { writes, target } = recordingTarget();
    const destination = turnBatched(target);
    destination.write('{"n":1}\n');
    destination.write('{"n":2}\n');
    destination.write('{"n":3}\n');
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toEqual(['{"n":1}\n{"n":2}\n{"n":3}\n']);
  });

  it("writes the lines of later turns separately, and nothing for a turn without lines", async () => {
    const { writes, target } = recordingTarget();
    const destination = turnBatched(target);
    destination.write("a\n");
    await nextTurn();
    await nextTurn();
    destination.write("b\n");
    await nextTurn();
    expect(writes).toEqual(["a\n", "b\n"]);
  });
});
