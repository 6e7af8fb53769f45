// Baseline (4), the peer as most teams would write it: Fastify 5, jsonwebtoken HS256 with the secret as
// a string, a JSON-schema body, one durable node:sqlite commit (one fsync) per request, and
// Fastify's default request logging (two lines per request) at info to a file.
import { DatabaseSync } from "node:sqlite";
import Fastify from "fastify";
import jwt from "jsonwebtoken";
import { announceListening } from "./fixed-response.js";
import { CREATE_TABLE, type NewPlantBody, newPlantSchema, peerArguments } from "./peer-arguments.js";

const { databaseFile, secret, logFile } = peerArguments();
const db = new DatabaseSync(databaseFile);
db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL");
db.exec(CREATE_TABLE);
const insert = db.prepare("INSERT INTO plants (id, name, tag) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING");

const app = Fastify({ logger: { level: "info", file: logFile } });

app.addHook("onRequest", async (request, reply) => {
  const header = request.headers.authorization;
  if (!header?.startsWith("Bearer ")) {
    return reply.code(401).send({ error: 40101, message: "a bearer token is required" });
  }
  try {
    jwt.verify(header.slice(7), secret, { algorithms: ["HS256"] });
  } catch {
    return reply.code(401).send({ error: 40102, message: "token is invalid" });
  }
});

app.post<{ Body: NewPlantBody }>("/plants", { schema: { body: newPlantSchema } }, async (request) => {
  const { id, name, tag } = request.body;
  insert.run(id, name, tag ?? null);
  return tag === undefined ? { name } : { name, tag };
});

const address = await app.listen({ port: 0, host: "127.0.0.1" });
announceListening(Number(new URL(address).port));
