import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { signToken } from "../src/auth/sign-token.js";
import { startOtlpReceiver } from "./support/otlp-receiver.js";
import { type ServerProcess, startServerProcess } from "./support/server-process.js";
import { tempDir } from "@plant-store/test-support/temp-dir";

// A traced server whose collector fails it, held to wall-clock bounds (its requests and its stop must not wait out the
// exporter's timeout): it runs alone, so no other file's work stretches it. The traces themselves: tracing.test.ts.
const SECRET = "tracing-test-secret-of-at-least-32-chars";
const TOKEN = signToken({ secret: SECRET });
/** The OTLP exporter's own timeout (OTEL_EXPORTER_OTLP_TIMEOUT's default): how long a request or a stop waiting on it would take. */
const EXPORT_TIMEOUT_MS = 10_000;

const receiver = startOtlpReceiver;

async function server(env: Record<string, string>): Promise<ServerProcess> {
  const dir = tempDir("plant-store-tracing-");
  // KEEP_ALIVE_TIMEOUT_MS: fetch then keeps no idle connection for each graceful stop to wait out.
  return startServerProcess({
    DATABASE_URL: join(dir, "plants.db"),
    JWT_SECRET: SECRET,
    KEEP_ALIVE_TIMEOUT_MS: "1000",
    ...env,
  });
}

let nextId = 1;

const createPlant = (baseUrl: string) =>
  fetch(`${baseUrl}/plants`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ id: nextId++, name: "Monstera", tag: "tropical" }),
  });

/** A loopback port nothing listens on: a collector that is down. */
async function closedPort(): Promise<number> {
  const probe = createServer().listen(0, "127.0.0.1");
  await new Promise((resolve) => probe.once("listening", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe("a collector that is down or hangs", () => {
  it.each([
    ["down (connection refused)", async () => `http://127.0.0.1:${await closedPort()}`],
    ["hanging (never answers)", async () => (await receiver({ answer: false })).endpoint],
  ])(
    "%s: every request is answered as usual, dropped spans are counted, shutdown keeps its timeout",
    async (_, endpoint) => {
      const plantStore = await server({
        OTEL_EXPORTER_OTLP_ENDPOINT: await endpoint(),
        // A queue of 8 spans, sent as soon as 4 are waiting: the first export is still failing when the queue fills.
        OTEL_BSP_MAX_QUEUE_SIZE: "8",
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "4",
        OTEL_BSP_SCHEDULE_DELAY: "20",
        SHUTDOWN_TIMEOUT_MS: "1500",
      });
      // A request that waited on the collector would take the exporter's 10 s timeout; one that does not takes
      // milliseconds. A real clock (the server is another process), bounded far from both, so a slow host passes.
      const slowest = { ms: 0 };
      for (let round = 0; round < 25; round++) {
        const sent = performance.now();
        expect((await createPlant(plantStore.baseUrl)).status).toBe(200);
        slowest.ms = Math.max(slowest.ms, performance.now() - sent);
      }
      expect(slowest.ms).toBeLessThan(EXPORT_TIMEOUT_MS / 2);

      const metrics = await (await fetch(`${plantStore.baseUrl}/metrics`)).text();
      const dropped = /otel_sdk_processor_span_processed_total\{error_type="queue_full"\} (\d+)/.exec(metrics);
      expect(Number(dropped?.[1])).toBeGreaterThan(0);

      const signalled = performance.now();
      plantStore.child.kill("SIGTERM");
      expect(await plantStore.exited).toBe(0);
      // A real clock, as above: SHUTDOWN_TIMEOUT_MS (1.5 s) bounds the process's exit even with spans stuck in the
      // exporter, which would otherwise hold it for its 10 s timeout; the margin is for a slow host.
      expect(performance.now() - signalled).toBeLessThan(1_500 + EXPORT_TIMEOUT_MS / 2);
    },
    60_000,
  );
});
