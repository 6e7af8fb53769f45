import { createSecretKey, type KeyObject } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { ErrorCode } from "@plant-store/contract";
import jwt from "jsonwebtoken";
import { expect, it } from "vitest";
import { generateSigningKey, nowSeconds } from "./support/tokens.js";
import { createTestDatabase, describePostgres, type TestDatabase } from "./support/postgres.js";
import { type ServerProcess, startServerProcess } from "./support/server-process.js";

/** One key source's rotation: how a signer signs with a key, and the server's settings for a set of keys. */
interface Rotation {
  name: string;
  old: { sign: KeyObject; algorithm: jwt.Algorithm };
  next: { sign: KeyObject; algorithm: jwt.Algorithm };
  oldOnly: Record<string, string>;
  both: Record<string, string>;
  nextOnly: Record<string, string>;
  /** What the server with both keys logs about them. */
  bothLogged: Record<string, number>;
  /** Secret material that must never reach the logs. */
  secrets: string[];
}

const OLD_SECRET = "the-old-hs256-secret-at-least-32-characters";
const NEXT_SECRET = "the-next-hs256-secret-at-least-32-characters";
const oldRsa = generateSigningKey("rsa");
const nextEc = generateSigningKey("P-256");

const rotations: Rotation[] = [
  {
    name: "HS256: JWT_SECRET, then JWT_SECRET + JWT_SECRET_PREVIOUS",
    old: { sign: createSecretKey(Buffer.from(OLD_SECRET)), algorithm: "HS256" },
    next: { sign: createSecretKey(Buffer.from(NEXT_SECRET)), algorithm: "HS256" },
    oldOnly: { JWT_SECRET: OLD_SECRET },
    both: { JWT_SECRET: NEXT_SECRET, JWT_SECRET_PREVIOUS: OLD_SECRET },
    nextOnly: { JWT_SECRET: NEXT_SECRET },
    bothLogged: { secret: 2 },
    secrets: [OLD_SECRET, NEXT_SECRET],
  },
  {
    name: "PEM: an RSA key, then RSA + EC P-256 in JWT_PUBLIC_KEY",
    old: { sign: oldRsa.privateKey, algorithm: "RS256" },
    next: { sign: nextEc.privateKey, algorithm: "ES256" },
    oldOnly: { JWT_PUBLIC_KEY: oldRsa.pem },
    both: { JWT_PUBLIC_KEY: `${oldRsa.pem}${nextEc.pem}` },
    nextOnly: { JWT_PUBLIC_KEY: nextEc.pem },
    bothLogged: { "RSA public key": 1, "EC prime256v1 public key": 1 },
    secrets: [],
  },
];

type Stream = "signer" | "old-key";
interface Outcome {
  step: string;
  stream: Stream;
  server: string;
  status: number | string;
  error?: number;
}

/**
 * Requests from `concurrency` clients until stopped, each to the next of the servers of the moment (a load
 * balancer's endpoints), alternating a token from the signer of the moment with one signed with the old key.
 */
function runLoad(options: {
  concurrency: number;
  targets: () => { label: string; url: string }[];
  signerKey: () => Rotation["old"];
  oldKey: Rotation["old"];
  step: () => string;
}) {
  const outcomes: Outcome[] = [];
  let stopped = false;
  let nextId = 1;
  const token = (key: Rotation["old"]) =>
    jwt.sign({ sub: "rotation-load", exp: nowSeconds() + 600, jti: String(nextId) }, key.sign, {
      algorithm: key.algorithm,
    });
  const client = async () => {
    for (let turn = 0; !stopped; turn++) {
      const stream: Stream = turn % 2 === 0 ? "signer" : "old-key";
      const targets = options.targets();
      const target = targets[nextId % targets.length]!;
      const id = nextId++;
      const step = options.step();
      try {
        const res = await fetch(`${target.url}/plants`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${token(stream === "signer" ? options.signerKey() : options.oldKey)}`,
            "content-type": "application/json",
          },
          body: JSON.stringify({ id, name: "Fern" }),
        });
        const body = (await res.json()) as { error?: number };
        outcomes.push({
          step,
          stream,
          server: target.label,
          status: res.status,
          ...(body.error !== undefined && { error: body.error }),
        });
      } catch (error) {
        outcomes.push({ step, stream, server: target.label, status: (error as Error).message });
      }
    }
  };
  const clients = Array.from({ length: options.concurrency }, client);
  return {
    outcomes,
    async stop() {
      stopped = true;
      await Promise.all(clients);
    },
  };
}

/** "step stream server status" -> count, for the report and the assertions. */
function tally(outcomes: Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { step, stream, server, status, error } of outcomes) {
    const key = `${step} | ${stream} -> ${server}: ${status}${error === undefined ? "" : ` ${error}`}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

describePostgres("key rotation through real processes, under load (a rolling update on PostgreSQL)", () => {
  it.each(rotations)(
    "$name: zero 401 for a token valid under the keys of the moment",
    async (rotation) => {
      const database: TestDatabase = await createTestDatabase();
      const start = async (label: string, keys: Record<string, string>) => {
        // A short keep-alive timeout: a retired server's idle connections close soon, so its drain ends soon.
        // No admission control: the outcome is which tokens each server accepts, not how loaded this host is.
        const server = await startServerProcess(
          { DATABASE_URL: database.url, KEEP_ALIVE_TIMEOUT_MS: "1000", ADMISSION_CONTROL: "false", ...keys },
          { keepOutputChars: 256 * 1024 },
        );
        // Logged before it listens, so read now, before the access log of the load pushes it out of the kept tail.
        const keysLine = server
          .stdout()
          .split("\n")
          .find((line) => line.includes('"token keys loaded"'));
        return { label, url: server.baseUrl, process: server, keysLine };
      };
      /** Takes a server out of the endpoints, then ends it as Kubernetes would (SIGTERM, drain). */
      const retire = async (server: { process: ServerProcess }) => {
        await sleep(100);
        server.process.child.kill("SIGTERM");
        expect(await server.process.exited).toBe(0);
      };

      let step = "1 old key only";
      let targets: Awaited<ReturnType<typeof start>>[] = [await start("A(old)", rotation.oldOnly)];
      let signer = rotation.old;
      const load = runLoad({
        concurrency: 6,
        targets: () => targets,
        signerKey: () => signer,
        oldKey: rotation.old,
        step: () => step,
      });
      await sleep(1_000);

      step = "2 rolling A(old) -> B(old+next)";
      const b = await start("B(old+next)", rotation.both);
      targets = [targets[0]!, b];
      await sleep(1_000);
      const a = targets[0]!;
      targets = [b];
      await retire(a);
      await sleep(500);

      step = "3 signer uses the next key";
      signer = rotation.next;
      await sleep(1_000);

      step = "4 rolling B(old+next) -> C(next)";
      const c = await start("C(next)", rotation.nextOnly);
      targets = [b, c];
      await sleep(1_000);
      targets = [c];
      await retire(b);
      step = "5 next key only";
      await sleep(1_000);
      await load.stop();

      const counts = tally(load.outcomes);
      console.log(
        `${rotation.name}\n${Object.entries(counts)
          .map(([key, n]) => `  ${key} x${n}`)
          .join("\n")}`,
      );

      // A token from the signer of the moment is valid under every server's keys at that moment: never refused.
      const signerRefused = load.outcomes.filter((outcome) => outcome.stream === "signer" && outcome.status !== 200);
      expect(signerRefused).toEqual([]);
      // An old-key token works until the server without the old key answers it, and then only gets 401.
      const oldKey = load.outcomes.filter((outcome) => outcome.stream === "old-key");
      expect(oldKey.filter((outcome) => outcome.server !== "C(next)" && outcome.status !== 200)).toEqual([]);
      const onC = oldKey.filter((outcome) => outcome.server === "C(next)");
      expect(onC.length).toBeGreaterThan(0);
      expect(onC.every((outcome) => outcome.status === 401 && outcome.error === ErrorCode.InvalidToken)).toBe(true);
      // Every step had traffic of both streams.
      for (const name of ["1", "2", "3", "4", "5"]) {
        for (const stream of ["signer", "old-key"]) {
          expect(load.outcomes.some((outcome) => outcome.step.startsWith(name) && outcome.stream === stream)).toBe(
            true,
          );
        }
      }

      // The server holding both keys said how many of each kind it holds, and never the keys.
      expect(JSON.parse(b.keysLine!).keys.count).toEqual(rotation.bothLogged);
      for (const server of [a, b, c]) {
        for (const text of [server.keysLine, server.process.stdout()]) {
          for (const secret of rotation.secrets) expect(text).not.toContain(secret);
          expect(text).not.toContain("BEGIN PUBLIC KEY");
        }
      }
    },
    60_000,
  );
});
