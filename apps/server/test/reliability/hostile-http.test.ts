import { join } from "node:path";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { type ServerProcess, serverProcesses } from "../support/server-process.js";
import { TEST_SECRET, testToken } from "../support/tokens.js";
import { contractViolation } from "./support/contract-response.js";
import { hostileConnection } from "./support/hostile-http.js";
import { openRawConnection, parseResponses } from "./support/raw-http.js";
import { querySqliteFile } from "@plant-store/test-support/sqlite-file";
import { tempDir } from "@plant-store/test-support/temp-dir";

/** How the reliability suites run the built server: on loopback, every response checked against the contract. */
const RELIABILITY_ENV = { HOST: "127.0.0.1", JWT_SECRET: TEST_SECRET, VALIDATE_RESPONSES: "true" };

// Malformed HTTP itself, below the body: framing conflicts (request smuggling's raw material), bad
// chunking, odd request lines and headers, several requests per connection.
const LONG = process.env.RELIABILITY_LONG === "1";
const CASES = LONG ? 3_000 : 300;
// Sent after every case without ending our side (a half-close would abort requests still in flight):
// the server answers it and closes, or closes earlier on an error, or times the case out.
const LAST_REQUEST = "GET /end-of-case HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
const SEED = process.env.RELIABILITY_SEED ? Number(process.env.RELIABILITY_SEED) : Math.floor(Math.random() * 2 ** 31);

const servers = serverProcesses(RELIABILITY_ENV, { keepOutputChars: 64 * 1024 });
const dir = tempDir("plant-store-hostile-http-");
const databaseFile = join(dir, "plants.db");
let server: ServerProcess;

beforeAll(async () => {
  // Short timeouts: a case whose framing leaves the server waiting for bytes that never come ends in 408.
  // After an Upgrade request Node stops parsing the connection, which then ends at the keep-alive timeout.
  server = await servers.start({
    DATABASE_URL: databaseFile,
    HEADERS_TIMEOUT_MS: "500",
    REQUEST_TIMEOUT_MS: "750",
    KEEP_ALIVE_TIMEOUT_MS: "500",
  });
});

describe("generated malformed HTTP on raw connections to the built server", () => {
  it(`${CASES} generated connections get only contract answers as JSON, complete and never 5xx, and are closed cleanly`, {
    timeout: LONG ? 900_000 : 120_000,
  }, async () => {
    const acknowledged = new Map<string, string>();
    const statuses = new Map<number, number>();
    const property = fc.asyncProperty(hostileConnection(testToken()), async (hostile) => {
      const connection = await openRawConnection(server.port);
      connection.socket.write(Buffer.concat([hostile.bytes, Buffer.from(LAST_REQUEST)]));
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<"open">((resolve) => {
        timer = setTimeout(() => resolve("open"), 5_000);
      });
      const outcome = await Promise.race([connection.closed, deadline]);
      clearTimeout(timer);
      if (outcome === "open") connection.destroy();
      const where = `for ${JSON.stringify(hostile.text)}\ngot ${JSON.stringify(connection.received().toString("latin1").slice(0, 600))}`;
      expect(outcome, `connection left open ${where}`).not.toBe("open");

      const { responses, rest } = parseResponses(connection.received());
      expect(rest.toString("latin1"), `incomplete response ${where}`).toBe("");
      // 100 Continue is an interim answer to Expect: 100-continue; the final answer follows it.
      for (const response of responses.filter((r) => r.status !== 100)) {
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        expect(response.status, where).toBeLessThan(500);
        expect(contractViolation(response.status, response.body), where).toBeUndefined();
        if (response.status === 200) {
          const plant = JSON.parse(response.body) as { name: string; tag?: string };
          acknowledged.set(plant.name, plant.tag ?? "");
        }
      }
    });
    const run = await fc.check(property, { numRuns: CASES, seed: SEED, endOnFailure: true });
    if (run.failed) {
      throw new Error(
        `malformed HTTP failed after ${run.numRuns} cases; replay with RELIABILITY_SEED=${run.seed} (path ${run.counterexamplePath})\n${String(run.errorInstance).slice(0, 3000)}`,
      );
    }
    expect(server.alive()).toBe(true);

    // Every stored plant was answered 200 on its connection: nothing was smuggled in unseen.
    const rows = querySqliteFile(databaseFile, (db) => db.prepare("SELECT name, tag FROM plants").all()) as {
      name: string;
      tag: string | null;
    }[];
    expect(new Map(rows.map((row) => [row.name, row.tag ?? ""]))).toEqual(acknowledged);
    console.info(
      `malformed HTTP: ${CASES} generated connections (seed ${SEED}), ${acknowledged.size} plants stored, answers by status: ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`,
    );
  });
});
