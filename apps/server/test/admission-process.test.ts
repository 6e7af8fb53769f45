import { Agent, request } from "node:http";
import { describe, expect, it } from "vitest";
import { signToken } from "../src/auth/sign-token.js";
import { startCappedServer } from "./support/server-process.js";
import { querySqliteFile } from "@plant-store/test-support/sqlite-file";

const SECRET = "admission-process-test-secret-of-32-chars";
// Envoy's default connection pool per upstream: a closed loop of 1,024 keep-alive connections, each sending its next
// request as soon as the last is answered, against the built server at a fifth of a core (uncapped where the machine
// cannot cap it: capped-server.ts). Its queue is 1,024 requests over the server's capacity and stays there: a wait,
// not an overload, and admission control must refuse none of it.
const CPU_CORES = 0.2;
const CONNECTIONS = 1_024;
const REQUESTS_PER_CONNECTION = 4;

describe("the built server with ADMISSION_CONTROL=true, under a closed loop of 1,024 connections", () => {
  it("refuses none of its requests, stores every one, and counts no refusal", { timeout: 120_000 }, async () => {
    const authorization = `Bearer ${signToken({ secret: SECRET, subject: "closed-loop" })}`;
    const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    let nextId = 1;
    const post = (baseUrl: string) =>
      new Promise<number>((resolve, reject) => {
        const body = `{"id": ${nextId++}, "name": "Loop"}`;
        const req = request(`${baseUrl}/plants`, {
          method: "POST",
          agent,
          headers: { authorization, "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        });
        req.once("error", reject);
        req.once("response", (res) => {
          res.resume();
          res.once("end", () => resolve(res.statusCode ?? 0));
        });
        req.end(body);
      });
    // Compiled code and prepared statements first, uncapped.
    let warmUpStored = 0;
    const warmUp = async ({ baseUrl }: { baseUrl: string }) => {
      for (let round = 0; round < 10; round++)
        for (const status of await Promise.all(Array.from({ length: 20 }, () => post(baseUrl)))) {
          expect(status).toBe(200);
          warmUpStored++;
        }
    };
    const server = await startCappedServer(
      { JWT_SECRET: SECRET, ADMISSION_CONTROL: "true" },
      { cores: CPU_CORES, warmUp },
    );
    const statuses = new Map<number, number>();
    const connection = async () => {
      for (let i = 0; i < REQUESTS_PER_CONNECTION; i++) {
        const status = await post(server.baseUrl);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    };
    try {
      await Promise.all(Array.from({ length: CONNECTIONS }, connection));
    } finally {
      agent.destroy();
    }

    expect(Object.fromEntries(statuses)).toEqual({ 200: CONNECTIONS * REQUESTS_PER_CONNECTION });
    const stored = querySqliteFile(
      server.databaseFile,
      (db) => db.prepare("SELECT count(*) AS n FROM plants").get()?.n,
    );
    expect(stored).toBe(BigInt(warmUpStored + CONNECTIONS * REQUESTS_PER_CONNECTION));
    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/^plant_store_requests_shed_total 0$/m);
  });
});
