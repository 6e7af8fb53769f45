import { ErrorCode, INT64_MAX, INT64_MIN } from "@plant-store/contract";
import { beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./support/test-server.js";

// One server and SQLite file for the file: each test uses ids of its own and reads back only those.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

const postRaw = (json: string) => t.post(json);
const rowsOf = (...ids: bigint[]) => t.rows().filter((row) => ids.includes(row.id));

describe("the id is the idempotency key", () => {
  it("repeating a create with identical name and tag returns 200 with the stored Plant and writes nothing", async () => {
    const first = await postRaw('{"id": 7, "name": "Cactus", "tag": "desert"}');
    const again = await postRaw('{"tag": "desert", "name": "Cactus", "id": 7}');
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ name: "Cactus", tag: "desert" });
    expect(rowsOf(7n)).toEqual([{ id: 7n, name: "Cactus", tag: "desert" }]);
  });

  it("the same id with a different name returns 409 and keeps the first plant", async () => {
    await postRaw('{"id": 17, "name": "Cactus"}');
    const res = await postRaw('{"id": 17, "name": "Rose"}');
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: ErrorCode.PlantIdConflict, message: expect.stringContaining("id 17") });
    expect(rowsOf(17n)).toEqual([{ id: 17n, name: "Cactus", tag: null }]);
  });

  it("the same id with a tag added, changed or dropped returns 409", async () => {
    await postRaw('{"id": 8, "name": "Palm", "tag": "indoor"}');
    expect((await postRaw('{"id": 8, "name": "Palm"}')).status).toBe(409);
    expect((await postRaw('{"id": 8, "name": "Palm", "tag": "outdoor"}')).status).toBe(409);
    await postRaw('{"id": 9, "name": "Moss"}');
    expect((await postRaw('{"id": 9, "name": "Moss", "tag": ""}')).status).toBe(409);
    expect(rowsOf(8n, 9n)).toHaveLength(2);
  });

  it("concurrent identical creates of one id all return 200 and store one row", async () => {
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => postRaw('{"id": 42, "name": "Basil", "tag": "herb"}')),
    );
    expect(responses.map((res) => res.status)).toEqual(Array(50).fill(200));
    expect(rowsOf(42n)).toEqual([{ id: 42n, name: "Basil", tag: "herb" }]);
  });

  it("concurrent different creates of one id: one wins with 200, every other body gets 409, no 500", async () => {
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) => postRaw(`{"id": 43, "name": "Plant ${i}"}`)),
    );
    const statuses = responses.map((res) => res.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(39);
    const winner = responses.find((res) => res.status === 200)!;
    expect(rowsOf(43n)).toEqual([{ id: 43n, name: winner.body.name, tag: null }]);
  });

  it("many concurrent creates of distinct ids are all stored", async () => {
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) => postRaw(`{"id": ${1000 + i}, "name": "Plant ${i}"}`)),
    );
    expect(responses.every((res) => res.status === 200)).toBe(true);
    expect(t.rows().filter((row) => row.id >= 1000n && row.id < 1200n)).toHaveLength(200);
  });
});

describe("ids are int64, stored exactly", () => {
  it.each([
    ["-2^63", INT64_MIN],
    ["2^63-1", INT64_MAX],
    ["zero", 0n],
    ["-1", -1n],
    ["2^53+1", 9007199254740993n],
  ])("%s is stored exactly", async (_label, id) => {
    const res = await postRaw(`{"id": ${id}, "name": "edge"}`);
    expect(res.status).toBe(200);
    expect(rowsOf(id)).toEqual([{ id, name: "edge", tag: null }]);
  });

  it("9007199254740993 and 9007199254740992 are different plants", async () => {
    // "edge", as the 2^53+1 case above stores it: created or replayed, either way 200.
    expect((await postRaw('{"id": 9007199254740993, "name": "edge"}')).status).toBe(200);
    expect((await postRaw('{"id": 9007199254740992, "name": "even"}')).status).toBe(200);
    expect(rowsOf(9007199254740992n, 9007199254740993n)).toEqual([
      { id: 9007199254740992n, name: "even", tag: null },
      { id: 9007199254740993n, name: "edge", tag: null },
    ]);
  });

  it("-0 is the id 0", async () => {
    // "edge", as the zero case above stores it: created or replayed, either way 200.
    expect((await postRaw('{"id": 0, "name": "edge"}')).status).toBe(200);
    expect((await postRaw('{"id": -0, "name": "edge"}')).status).toBe(200);
    expect(rowsOf(0n)).toEqual([{ id: 0n, name: "edge", tag: null }]);
  });
});
