import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startTestApp } from "./support/test-server.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("the SQLite store on disk", () => {
  it("keeps plants across an app restart on the same file, and replays and conflicts against them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "plant-store-restart-"));
    dirs.push(dir);
    const databaseFile = join(dir, "nested", "folder", "plants.db");

    const first = await startTestApp({ databaseFile });
    const created = await first.postJson('{"id": 9223372036854775807, "name": "Oak", "tag": "tree"}');
    expect(created.status).toBe(200);
    await first.close();

    const second = await startTestApp({ databaseFile });
    try {
      const send = second.postJson;
      expect((await send('{"id": 9223372036854775807, "name": "Oak", "tag": "tree"}')).status).toBe(200);
      expect((await send('{"id": 9223372036854775807, "name": "Elm"}')).status).toBe(409);
      expect(second.rows()).toEqual([{ id: 9223372036854775807n, name: "Oak", tag: "tree" }]);
    } finally {
      await second.close();
    }
  });
});
