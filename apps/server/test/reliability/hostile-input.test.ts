import { request as httpRequest, Agent } from "node:http";
import { join } from "node:path";
import fc from "fast-check";
import { parse } from "lossless-json";
import { beforeAll, describe, expect, it } from "vitest";
import { type ServerProcess, serverProcesses } from "../support/server-process.js";
import { TEST_SECRET, testToken } from "../support/tokens.js";
import { contractViolation } from "./support/contract-response.js";
import { describeRequest, type HostileRequest, hostileRequest } from "./support/hostile-requests.js";
import { querySqliteFile } from "@plant-store/test-support/sqlite-file";
import { tempDir } from "@plant-store/test-support/temp-dir";
import { tearDownWith } from "@plant-store/test-support/teardown";

/** How the reliability suites run the built server: on loopback, every response checked against the contract. */
const RELIABILITY_ENV = { HOST: "127.0.0.1", JWT_SECRET: TEST_SECRET, VALIDATE_RESPONSES: "true" };

// At least 2,000 generated requests in every run; RELIABILITY_LONG=1 sends 20,000. RELIABILITY_SEED
// replays a run (the seed is printed when a case fails).
const LONG = process.env.RELIABILITY_LONG === "1";
const CASES = LONG ? 20_000 : 2_000;
const SEED = process.env.RELIABILITY_SEED ? Number(process.env.RELIABILITY_SEED) : Math.floor(Math.random() * 2 ** 31);
// A smaller body limit than the default makes over-limit bodies cheap to generate.
const BODY_LIMIT_BYTES = 256 * 1024;

interface Plant {
  name: string;
  tag?: string;
}

const servers = serverProcesses(RELIABILITY_ENV, { keepOutputChars: 64 * 1024 });
const dir = tempDir("plant-store-hostile-");
const databaseFile = join(dir, "plants.db");
let server: ServerProcess;
// One connection reused for every case, as a client with keep-alive would.
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

beforeAll(async () => {
  server = await servers.start({ DATABASE_URL: databaseFile, BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES) });
});
tearDownWith(() => agent.destroy());

/** Sends one generated request; a response that arrived counts even if the server then closed on us. */
function send(port: number, hostile: HostileRequest): Promise<{ status: number; body: string }> {
  const headers: Record<string, string> = { ...hostile.extraHeaders };
  if (hostile.authorization !== undefined) headers.authorization = hostile.authorization;
  if (hostile.contentType !== undefined) headers["content-type"] = hostile.contentType;
  headers[hostile.chunked ? "transfer-encoding" : "content-length"] = hostile.chunked
    ? "chunked"
    : String(hostile.body.length);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, method: "POST", path: "/plants", agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    if (hostile.body.length > 0) req.write(hostile.body);
    req.end();
  });
}

/** The id of a body the server accepted, read as the server reads it: integers exactly, as bigint. */
function acceptedId(body: Buffer): bigint {
  const value = parse(body.toString("utf8"), null, (literal) =>
    /^-?\d+$/.test(literal) ? BigInt(literal) : Number(literal),
  );
  return (value as { id: bigint }).id;
}

function storedRows(): Map<bigint, Plant> {
  const rows = querySqliteFile(databaseFile, (db) => db.prepare("SELECT id, name, tag FROM plants").all()) as {
    id: bigint;
    name: string;
    tag: string | null;
  }[];
  return new Map(rows.map((row) => [row.id, row.tag === null ? { name: row.name } : { name: row.name, tag: row.tag }]));
}

describe("generated hostile requests to the built server", () => {
  it(`${CASES} generated bodies and headers get only contract answers, never 5xx, and only 200s store anything`, {
    timeout: LONG ? 1_800_000 : 180_000,
  }, async () => {
    /** What the store must hold: exactly the plants acknowledged with 200. */
    const acknowledged = new Map<bigint, Plant>();
    const statuses = new Map<string, number>();

    const property = fc.asyncProperty(hostileRequest(BODY_LIMIT_BYTES), async (hostile) => {
      const { status, body } = await send(server.port, hostile);
      const where = `${status} ${body.slice(0, 300)} for ${describeRequest(hostile)}`;
      statuses.set(`${status} ${hostile.shape}`, (statuses.get(`${status} ${hostile.shape}`) ?? 0) + 1);

      expect([200, 400, 401, 409, 413], where).toContain(status);
      expect(contractViolation(status, body), where).toBeUndefined();
      if (!hostile.authorized) expect(status, where).toBe(401);
      if (hostile.authorized) expect(status, where).not.toBe(401);
      if (status === 413) expect(hostile.body.length, where).toBeGreaterThan(BODY_LIMIT_BYTES);

      if (status === 200 || status === 409) {
        const id = acceptedId(hostile.body);
        const existing = acknowledged.get(id);
        if (status === 409) {
          // A conflict is only right against a plant stored earlier with different data.
          expect(existing, where).toBeDefined();
        } else {
          const plant = JSON.parse(body) as Plant;
          if (existing) expect(plant, where).toEqual(existing);
          acknowledged.set(id, plant);
        }
      }
    });

    // fc.check rather than fc.assert: its report would print whole 100 KiB bodies; ours is short.
    const run = await fc.check(property, { numRuns: CASES, seed: SEED, endOnFailure: true });
    if (run.failed) {
      const failure = run.errorInstance instanceof Error ? run.errorInstance.message : String(run.errorInstance);
      throw new Error(
        `hostile input failed after ${run.numRuns} cases; replay with RELIABILITY_SEED=${run.seed} (path ${run.counterexamplePath})\n` +
          `${run.counterexample ? describeRequest(run.counterexample[0]) : ""}\n${failure.slice(0, 2000)}`,
      );
    }

    expect(server.alive(), "the server process is still running").toBe(true);
    const check = await fetch(`${server.baseUrl}/plants`, {
      method: "POST",
      headers: { authorization: `Bearer ${testToken()}`, "content-type": "application/json" },
      body: '{"id": -4242, "name": "still serving"}',
    });
    expect(check.status).toBe(200);
    acknowledged.set(-4242n, { name: "still serving" });

    // Nothing but acknowledged creates reached the file: no row from a 4xx, none changed by a replay.
    expect(storedRows()).toEqual(acknowledged);
    console.info(
      `hostile input: ${CASES} generated requests (seed ${SEED}), ${acknowledged.size - 1} plants stored, answers by status and body shape: ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`,
    );
  });
});
