import { ErrorCode, INT64_MAX } from "@plant-store/contract";
import { beforeAll, expect, it } from "vitest";
import { signToken } from "../src/auth/sign-token.js";
import { createTestDatabase, describePostgres, type TestDatabase } from "./support/postgres.js";
import { type ServerProcess, startServerProcess } from "./support/server-process.js";
import { TEST_SECRET } from "./support/test-server.js";

const INSTANCES = 3;
const DISTINCT_IDS = 600;
const CONTESTED_IDS = 60;
// Each contested id is sent six times at once, two to each instance: three identical creates and
// three with other data, so identical replays and conflicts race across processes.
const CONTENDERS = ["Alpha", "Alpha", "Alpha", "Beta", "Beta", "Gamma"];
const GROUPS_IN_FLIGHT = 16;

interface Sent {
  id: bigint;
  name: string;
  status: number;
  body: unknown;
}

describePostgres("three server processes sharing one PostgreSQL", () => {
  let database: TestDatabase;
  let servers: ServerProcess[];
  const token = signToken({ secret: TEST_SECRET });

  beforeAll(async () => {
    database = await createTestDatabase();
    // Started together, so their migrations race on the empty database.
    servers = await Promise.all(
      Array.from({ length: INSTANCES }, () =>
        // Every create must be answered 200 or 409 as the data says: a refusal of a busy test machine's load is not under test.
        startServerProcess({
          DATABASE_URL: database.url,
          JWT_SECRET: TEST_SECRET,
          PG_POOL_SIZE: "4",
          ADMISSION_CONTROL: "false",
        }),
      ),
    );
  }, 30_000);

  const create = async (instance: number, id: bigint, name: string): Promise<Sent> => {
    const res = await fetch(`${servers[instance % INSTANCES]!.baseUrl}/plants`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: `{"id": ${id}, "name": "${name}"}`,
    });
    return { id, name, status: res.status, body: await res.json() };
  };

  it("concurrent clients over all three store exactly one row per id, answer 200 or 409 as the data says, never 5xx", async () => {
    // One contested id after every ten distinct ones, so the races meet other traffic.
    const groups: (() => Promise<Sent[]>)[] = [];
    for (let i = 0; i < DISTINCT_IDS; i++) {
      const id = INT64_MAX - BigInt(i);
      groups.push(async () => [await create(i, id, `distinct ${i}`)]);
      if (i % 10 === 9 && i / 10 < CONTESTED_IDS) {
        const contested = 1_000_000n + BigInt(Math.floor(i / 10));
        groups.push(() => Promise.all(CONTENDERS.map((name, n) => create(n, contested, name))));
      }
    }

    const sent: Sent[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: GROUPS_IN_FLIGHT }, async () => {
        while (next < groups.length) sent.push(...(await groups[next++]!()));
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    console.info(`scale-out: ${sent.length} creates over ${INSTANCES} instances in ${seconds.toFixed(2)} s`);

    expect(sent).toHaveLength(DISTINCT_IDS + CONTESTED_IDS * CONTENDERS.length);
    expect(sent.filter((s) => s.status >= 500)).toEqual([]);
    expect(new Set(sent.map((s) => s.status))).toEqual(new Set([200, 409]));

    const rows = await database.rows();
    expect(rows).toHaveLength(DISTINCT_IDS + CONTESTED_IDS);
    const stored = new Map(rows.map((row) => [row.id, row]));
    for (const s of sent) {
      const row = stored.get(s.id);
      expect(row, `id ${s.id} is stored`).toBeDefined();
      if (row!.name === s.name) {
        expect(s).toMatchObject({ status: 200, body: { name: s.name } });
      } else {
        expect(s).toMatchObject({ status: 409, body: { error: ErrorCode.PlantIdConflict } });
      }
    }
    // Every contested id was won by one of its contenders, and all three instances served traffic.
    for (let i = 0; i < CONTESTED_IDS; i++) expect(CONTENDERS).toContain(stored.get(1_000_000n + BigInt(i))!.name);
    for (const server of servers) expect(server.stdout()).toContain('"statusCode":200');
    expect(await database.query("SELECT name FROM kysely_migration")).toEqual([{ name: "0001_create_plants" }]);
  }, 60_000);
});
