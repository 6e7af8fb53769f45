import { ErrorCode } from "@plant-store/contract";
import { beforeEach, expect, it, vi } from "vitest";
import { signToken } from "../src/auth/sign-token.js";
import { createLogger } from "../src/logger.js";
import { PostgresPlantStore } from "../src/store/postgres/postgres-plant-store.js";
import { StoreUnavailableError } from "../src/store/store-unavailable.js";
import { createTestDatabase, describePostgres, type TestDatabase } from "./support/postgres.js";
import { type ServerProcess, startServerProcess } from "./support/server-process.js";
import { startTcpProxy, type TcpProxy } from "./support/tcp-proxy.js";
import { TEST_SECRET } from "./support/test-server.js";

// Short timeouts keep the outage test quick; the bound on any answer follows from them:
// a connect attempt (500 ms) or a statement (1000 ms + 1000 ms on the client) per batch, plus the
// batch ahead of it in the queue (4 s together), with room for a host twice as slow and busy: only a hang or a
// retry loop crosses it.
const CONNECT_TIMEOUT_MS = 500;
const STATEMENT_TIMEOUT_MS = 1_000;
const ANSWER_BOUND_MS = 12_000;
const WORKERS = 8;

interface Answer {
  id: number;
  status: number;
  body: { error?: number; message?: string; name?: string };
  retryAfter: string | null;
  ms: number;
  finishedAt: number;
  phase: "before" | "down" | "after";
}

describePostgres("a PostgreSQL outage", () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  beforeEach(async () => {
    database = await createTestDatabase();
    proxy = await startTcpProxy({ host: database.host, port: database.port });
  });
  const urlThroughProxy = () => `postgres://postgres@127.0.0.1:${proxy.port}/${database.name}`;

  it("is answered with 503 StoreUnavailable in bounded time, heals by itself when the database returns, and loses no acknowledged plant; /readyz is 503 meanwhile", async () => {
    const server: ServerProcess = await startServerProcess({
      DATABASE_URL: urlThroughProxy(),
      JWT_SECRET: TEST_SECRET,
      PG_POOL_SIZE: "4",
      PG_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
      PG_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      LOG_LEVEL: "info",
    });
    try {
      const token = signToken({ secret: TEST_SECRET });
      const create = (id: number) =>
        fetch(`${server.baseUrl}/plants`, {
          method: "POST",
          headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
          body: `{"id": ${id}, "name": "plant ${id}"}`,
        });

      const answers: Answer[] = [];
      let phase: Answer["phase"] = "before";
      let nextId = 1;
      let stop = false;
      let onAnswer = () => {};
      /** Resolves once enough answers of a kind have arrived; fails the test if they never do. */
      const waitFor = (what: string, done: () => boolean) =>
        new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), 20_000);
          onAnswer = () => {
            if (!done()) return;
            clearTimeout(timer);
            resolve();
          };
          onAnswer();
        });
      const count = (inPhase: Answer["phase"], status: number) =>
        answers.filter((answer) => answer.phase === inPhase && answer.status === status).length;

      const workers = Array.from({ length: WORKERS }, async () => {
        while (!stop) {
          const id = nextId++;
          const sentIn = phase;
          const started = performance.now();
          const res = await create(id);
          answers.push({
            id,
            status: res.status,
            body: (await res.json()) as Answer["body"],
            retryAfter: res.headers.get("retry-after"),
            ms: performance.now() - started,
            finishedAt: performance.now(),
            phase: sentIn,
          });
          onAnswer();
        }
      });

      await waitFor("200s before the cut", () => count("before", 200) >= 150);
      phase = "down";
      const cutAt = performance.now();
      proxy.cut();
      await waitFor("503s during the outage", () => count("down", 503) >= 40);
      // The load balancer's view: not ready while the database is cut off, ready again once it returns.
      const notReady = await fetch(`${server.baseUrl}/readyz`);
      expect(notReady.status).toBe(503);
      expect(await notReady.json()).toEqual({ error: ErrorCode.StoreUnavailable, message: "the store is unreachable" });
      phase = "after";
      proxy.restore();
      await waitFor("200s after the database returned", () => count("after", 200) >= 150);
      expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
      stop = true;
      await Promise.all(workers);

      // Only 200 and 503, every 503 an Error body with the contract's code, every answer in bounded time.
      expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([200, 503]));
      for (const answer of answers.filter((a) => a.status === 503)) {
        expect(answer.body).toEqual({ error: ErrorCode.StoreUnavailable, message: expect.any(String) });
        expect(answer.retryAfter).toBe("1");
      }
      // A real clock: the server is another process, whose answers in bounded time are what is under test; the
      // bound is several times the timeouts that make it, so only a hang or a retry loop crosses it.
      expect(Math.max(...answers.map((answer) => answer.ms))).toBeLessThan(ANSWER_BOUND_MS);
      expect(answers.filter((a) => a.finishedAt < cutAt).every((a) => a.status === 200)).toBe(true);
      expect(server.child.exitCode).toBeNull();

      // Every acknowledged plant is stored.
      const stored = new Set((await database.rows()).map((row) => Number(row.id)));
      const acknowledged = answers.filter((answer) => answer.status === 200).map((answer) => answer.id);
      expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);

      // A 503 left the outcome unknown; retrying the same body settles it with 200 (new or replayed).
      const unavailable = answers.filter((answer) => answer.status === 503).map((answer) => answer.id);
      const retries = await Promise.all(unavailable.map((id) => create(id).then((res) => res.status)));
      expect(retries.every((status) => status === 200)).toBe(true);
      expect((await database.rows()).length).toBe(acknowledged.length + unavailable.length);

      const worst = Math.max(...answers.filter((a) => a.phase === "down").map((a) => a.ms));
      console.info(
        `outage: ${acknowledged.length} acknowledged, ${unavailable.length} answered 503 (slowest ${worst.toFixed(0)} ms), all retries 200`,
      );
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
    }
  }, 60_000);

  /** A store whose database connections all pass through the test's proxy. */
  const openStoreThroughProxy = () =>
    PostgresPlantStore.open({
      connectionString: urlThroughProxy(),
      poolSize: 2,
      statementTimeoutMs: STATEMENT_TIMEOUT_MS,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      logger: createLogger("silent"),
    });

  /** The outcome of `promise` so far, without waiting for it. */
  const watch = <T>(promise: Promise<T>) => {
    const state = { settled: false, promise };
    promise.then(
      () => (state.settled = true),
      () => (state.settled = true),
    );
    return state;
  };

  // The store's own timeouts (pg's connect and query timeouts) run on a fake clock: the proof that a wait
  // ends when its timeout says, with no real time spent and no bound that a slow host could break.
  const useFakeClock = () =>
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"], shouldClearNativeTimers: true });
  /** Until the store has sent what it was asked and armed its timeout (or already failed). */
  const timeoutArmed = async (call: { settled: boolean }) => {
    while (vi.getTimerCount() === 0 && !call.settled) await new Promise(setImmediate);
  };

  it("the store's readiness check fails by the connect timeout while the database is cut, and succeeds again after", async () => {
    const store = await openStoreThroughProxy();
    try {
      await expect(store.ping()).resolves.toBeUndefined();
      proxy.cut();
      useFakeClock();
      const ping = watch(store.ping());
      await vi.advanceTimersByTimeAsync(CONNECT_TIMEOUT_MS);
      await expect(ping.promise).rejects.toThrow();
      const create = watch(store.create({ id: 1n, name: "while down" }));
      await timeoutArmed(create);
      await vi.advanceTimersByTimeAsync(CONNECT_TIMEOUT_MS);
      await expect(create.promise).rejects.toBeInstanceOf(StoreUnavailableError);
      vi.useRealTimers();
      proxy.restore();
      await expect(store.ping()).resolves.toBeUndefined();
      expect(await store.create({ id: 1n, name: "while down" })).toMatchObject({ kind: "created" });
    } finally {
      vi.useRealTimers();
      await store.close();
    }
  });

  it("a silent partition (connections open, nothing answered) fails creates at the statement timeout plus 1 s, then heals", async () => {
    const store = await openStoreThroughProxy();
    try {
      expect(await store.create({ id: 1n, name: "before" })).toMatchObject({ kind: "created" });
      proxy.freeze();
      useFakeClock();
      const create = watch(store.create({ id: 2n, name: "into the void" }));
      await timeoutArmed(create);
      await vi.advanceTimersByTimeAsync(STATEMENT_TIMEOUT_MS + 1_000 - 1);
      expect(create.settled, "still waiting 1 ms before the client's timeout").toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await expect(create.promise).rejects.toBeInstanceOf(StoreUnavailableError);
      vi.useRealTimers();
      proxy.restore();
      expect(await store.create({ id: 2n, name: "into the void" })).toMatchObject({
        kind: expect.stringMatching(/created|replayed/),
      });
      expect(await database.rows()).toHaveLength(2);
    } finally {
      vi.useRealTimers();
      await store.close();
    }
  });
});
