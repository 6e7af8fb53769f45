import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "@plant-store/test-support/temp-dir";
import { startTestApp } from "./support/test-server.js";

describe("the SQLite store on disk", () => {
  it("keeps plants across an app restart on the same file, and replays and conflicts against them", async () => {
    const databaseFile = join(tempDir("plant-store-restart-"), "nested", "folder", "plants.db");

    const first = await startTestApp({ databaseFile });
    const created = await first.post('{"id": 9223372036854775807, "name": "Oak", "tag": "tree"}');
    expect(created.status).toBe(200);
    await first.close();

    const second = await startTestApp({ databaseFile });
    expect((await second.post('{"id": 9223372036854775807, "name": "Oak", "tag": "tree"}')).status).toBe(200);
    expect((await second.post('{"id": 9223372036854775807, "name": "Elm"}')).status).toBe(409);
    expect(second.rows()).toEqual([{ id: 9223372036854775807n, name: "Oak", tag: "tree" }]);
  });
});
