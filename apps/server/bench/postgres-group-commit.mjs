// Prints creates per second of the PostgreSQL store with group commit (one INSERT per batch) and with
// one statement per create (maxBatchSize 1), at the same pool size and client concurrency.
// Run after `pnpm build`: node bench/postgres-group-commit.mjs [creates] [concurrency] [poolSize]
// Uses PostgreSQL on 127.0.0.1:5432 (PGHOST/PGPORT/PGUSER/PGDATABASE override) in a scratch database.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { createLogger } from "../dist/logger.js";
import { PostgresPlantStore } from "../dist/store/postgres/postgres-plant-store.js";

const [creates = 20_000, concurrency = 256, poolSize = 10] = process.argv.slice(2).map(Number);
const admin = {
  host: process.env.PGHOST ?? "127.0.0.1",
  port: Number(process.env.PGPORT ?? 5432),
  user: process.env.PGUSER ?? "postgres",
  database: process.env.PGDATABASE ?? "test",
};

async function adminQuery(sql) {
  const client = new pg.Client(admin);
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function run(label, maxBatchSize) {
  const name = `plant_store_bench_${randomBytes(4).toString("hex")}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  try {
    const store = await PostgresPlantStore.open({
      connectionString: `postgres://${admin.user}@${admin.host}:${admin.port}/${name}`,
      poolSize,
      statementTimeoutMs: 10_000,
      connectTimeoutMs: 5_000,
      logger: createLogger("silent"),
      maxBatchSize,
    });
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < creates) {
          const id = BigInt(next++);
          await store.create({ id, name: `plant ${id}`, tag: "bench" });
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    await store.close();
    console.log(
      `${label.padEnd(34)} ${Math.round(creates / seconds)
        .toString()
        .padStart(7)} creates/s`,
    );
  } finally {
    await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

console.log(`${creates} creates, ${concurrency} concurrent, pool of ${poolSize}`);
await run("group commit (INSERT per batch)", undefined);
await run("one statement per create", 1);
