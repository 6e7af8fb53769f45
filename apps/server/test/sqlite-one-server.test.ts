import { readdirSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { ErrorCode } from "@plant-store/contract";
import { describe, expect, it } from "vitest";
import { querySqliteFile } from "@plant-store/test-support/sqlite-file";
import { logLines, type ServerProcess, startServerProcess } from "./support/server-process.js";
import { tempDir } from "@plant-store/test-support/temp-dir";
import { TEST_SECRET, testToken } from "./support/tokens.js";

const TOKEN = testToken();
// The old server of a rolling update is given a moment to drain; none is needed here.
const ENV = { JWT_SECRET: TEST_SECRET, ADMISSION_CONTROL: "false", SHUTDOWN_DELAY_MS: "0" };

const startServer = (file: string, options: { untilReady?: boolean } = {}) =>
  startServerProcess({ ...ENV, DATABASE_URL: file }, options);

const plantBody = (id: number) => `{"id": ${id}, "name": "plant ${id}"}`;

const postPlant = (server: ServerProcess, body: string) =>
  fetch(`${server.baseUrl}/plants`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body,
  });

/** POSTs each id's body and resolves with the statuses, in id order. */
async function postAll(server: ServerProcess, ids: number[]): Promise<number[]> {
  const statuses: number[] = [];
  for (const id of ids) {
    const res = await postPlant(server, plantBody(id));
    await res.arrayBuffer();
    statuses.push(res.status);
  }
  return statuses;
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

/** Polls GET /readyz until it answers 200; fails after 15 s (a start's own bound). */
async function untilReady(server: ServerProcess): Promise<void> {
  const deadline = Date.now() + 15_000;
  while ((await fetch(`${server.baseUrl}/readyz`)).status !== 200) {
    if (Date.now() > deadline) throw new Error(`never ready:\n${server.output()}`);
    await sleep(50);
  }
}

/** The ids stored in the file, in order (read through a connection of the test's own). */
const storedIds = (file: string) =>
  querySqliteFile(file, (db) =>
    (db.prepare("SELECT id FROM plants ORDER BY id").all() as { id: bigint }[]).map((row) => Number(row.id)),
  );

describe("two servers on one SQLite file (built server, real processes)", () => {
  it.each([
    ["stops (SIGTERM)", (server: ServerProcess) => server.stop()],
    ["is killed (kill -9)", (server: ServerProcess) => server.kill9()],
  ])(
    "the second waits, alive and not ready, writing nothing, until the first %s; then it serves all the first wrote",
    async (_case, letGo) => {
      const file = join(tempDir("plant-store-one-server-"), "plants.db");
      const first = await startServer(file);
      expect(await postAll(first, range(1, 20))).toEqual(Array(20).fill(200));

      const second = await startServer(file, { untilReady: false });
      const [waitLine] = await second.waitForStdout(/^\{.*held by another process.*\}$/m);
      expect(JSON.parse(waitLine)).toMatchObject({
        level: 40,
        holderPid: first.child.pid,
        msg: `SQLite store ${file} is held by another process (pid ${first.child.pid}); waiting for it to let go`,
      });
      expect(logLines(second.stdout()).find((line) => line.msg === "plant store listening")).toMatchObject({
        ready: false,
      });

      // Waiting: alive, not ready, and a create refused as in an outage, with nothing written.
      expect((await fetch(`${second.baseUrl}/healthz`)).status).toBe(200);
      const ready = await fetch(`${second.baseUrl}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ error: ErrorCode.StoreUnavailable, message: expect.any(String) });
      const refused = await postPlant(second, plantBody(1001));
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("1");
      expect(await refused.json()).toEqual({ error: ErrorCode.StoreUnavailable, message: expect.any(String) });
      // The first serves on meanwhile.
      expect((await fetch(`${first.baseUrl}/readyz`)).status).toBe(200);
      expect(await postAll(first, [21])).toEqual([200]);
      expect(storedIds(file)).toEqual(range(1, 21));

      await letGo(first);
      await untilReady(second);
      // Everything the first acknowledged is there: each replay answers 200 and another body for its id 409.
      expect(await postAll(second, range(1, 21))).toEqual(Array(21).fill(200));
      const conflict = await postPlant(second, '{"id": 7, "name": "another plant"}');
      expect(conflict.status).toBe(409);
      await conflict.arrayBuffer();
      expect(await postAll(second, [1001])).toEqual([200]);
      await second.stop();
      // The lock's file goes with the server that stops cleanly, even one taken over from a killed server.
      expect(readdirSync(join(file, ".."))).toEqual(["plants.db"]);

      expect(storedIds(file)).toEqual([...range(1, 21), 1001]);
      // Said once when the wait began, not on each of its attempts; no other warning meanwhile.
      const waitLines = logLines(second.stdout()).filter((line) =>
        String(line.msg).includes("held by another process"),
      );
      const opened = logLines(second.stdout()).find((line) => line.msg === "store open: ready");
      expect(waitLines.length).toBeLessThan(Number(opened?.attempts));
      expect(logLines(second.stdout()).filter((line) => line.msg === "store unavailable at start; retrying")).toEqual(
        [],
      );
    },
  );
});
