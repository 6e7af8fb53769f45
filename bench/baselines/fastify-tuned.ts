// Baseline (5), the same peer tuned as an expert would: the HS256 key made once as a KeyObject, group
// commit (the creates of one event-loop turn share one durable transaction), and one log line per
// request at info to a file instead of Fastify's two.
import { createSecretKey } from "node:crypto";
import { DatabaseSync } from "node:sqlite";
import Fastify from "fastify";
import jwt from "jsonwebtoken";
import { announceListening } from "./fixed-response.js";
import { CREATE_TABLE, type NewPlantBody, newPlantSchema, peerArguments } from "./peer-arguments.js";

const { databaseFile, secret, logFile } = peerArguments();
const key = createSecretKey(Buffer.from(secret, "utf8"));
const db = new DatabaseSync(databaseFile);
db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL");
db.exec(CREATE_TABLE);
const insert = db.prepare("INSERT INTO plants (id, name, tag) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING");
function writeBatch(plants: NewPlantBody[]): void {
  db.exec("BEGIN IMMEDIATE");
  try {
    for (const plant of plants) insert.run(plant.id, plant.name, plant.tag ?? null);
    db.exec("COMMIT");
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  }
}

let pending: { plant: NewPlantBody; done: (error?: unknown) => void }[] = [];
function flush(): void {
  const batch = pending;
  pending = [];
  try {
    writeBatch(batch.map((entry) => entry.plant));
    for (const entry of batch) entry.done();
  } catch (error) {
    for (const entry of batch) entry.done(error);
  }
}
function store(plant: NewPlantBody): Promise<void> {
  return new Promise((resolve, reject) => {
    if (pending.length === 0) setImmediate(flush);
    pending.push({ plant, done: (error) => (error ? reject(error) : resolve()) });
  });
}

const app = Fastify({ logger: { level: "info", file: logFile }, disableRequestLogging: true });
// The overload mode's anchor (UNDER_PRESSURE=readme): the same peer with @fastify/under-pressure at its README's
// event-loop settings. Its example's 100 MB heap and RSS limits are left out: this peer's RSS passes 100 MB under
// load, and with them it refuses every request.
if (process.env.UNDER_PRESSURE === "readme") {
  const { default: underPressure } = await import("@fastify/under-pressure");
  await app.register(underPressure, { maxEventLoopDelay: 1000, maxEventLoopUtilization: 0.98 });
}

app.addHook("onRequest", async (request, reply) => {
  const header = request.headers.authorization;
  if (!header?.startsWith("Bearer ")) {
    return reply.code(401).send({ error: 40101, message: "a bearer token is required" });
  }
  try {
    jwt.verify(header.slice(7), key, { algorithms: ["HS256"] });
  } catch {
    return reply.code(401).send({ error: 40102, message: "token is invalid" });
  }
});
app.addHook("onResponse", async (request, reply) => {
  request.log.info({ method: request.method, url: request.url, statusCode: reply.statusCode }, "request completed");
});

app.post<{ Body: NewPlantBody }>("/plants", { schema: { body: newPlantSchema } }, async (request) => {
  const { name, tag } = request.body;
  await store(request.body);
  return tag === undefined ? { name } : { name, tag };
});

// Stopped with SIGTERM: exit normally, so that `node --cpu-prof` (the bench's profile mode) writes its profile.
// Every acknowledged create is already committed (synchronous=FULL).
process.once("SIGTERM", () => process.exit(0));
const address = await app.listen({ port: 0, host: "127.0.0.1" });
announceListening(Number(new URL(address).port));
