import net from "node:net";
import { join } from "node:path";
import { ErrorCode } from "@plant-store/contract";
import { expect, it, onTestFinished } from "vitest";
import { signToken } from "../src/auth/sign-token.js";
import { freePort } from "./support/free-port.js";
import { logLines, runServerExpectingExit, type ServerProcess, serverProcesses } from "./support/server-process.js";
import { tempDir } from "@plant-store/test-support/temp-dir";

const SECRET = "start-failures-secret-at-least-32-characters";
// untilReady: false, for the server that waits for its database.
const servers = serverProcesses({ JWT_SECRET: SECRET, ADMISSION_CONTROL: "false" }, { untilReady: false });

/** What a start that failed logged at warn or above: its one failure line, and nothing else. */
const loudLines = (stdout: string) => logLines(stdout).filter((line) => Number(line.level) >= 40);

/** A port something else listens on for the rest of the test. */
async function takenPort(): Promise<number> {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => new Promise<void>((resolve) => holder.close(() => resolve())));
  return (holder.address() as net.AddressInfo).port;
}

it("a second server on the port of one still in its shutdown delay exits 1 with one JSON line naming PORT and the likely cause", async () => {
  // A store each: a second server on the first's store would also wait for it (sqlite-one-server.test.ts).
  const first = await servers.start({ SHUTDOWN_DELAY_MS: "5000", DATABASE_URL: join(tempDir(), "plants.db") });
  first.child.kill("SIGTERM");
  await first.waitForStdout(/readiness is now 503/);

  const second = await runServerExpectingExit({
    JWT_SECRET: SECRET,
    PORT: String(first.port),
    DATABASE_URL: join(tempDir(), "plants.db"),
  });
  expect(second.code).toBe(1);
  expect(second.stderr).toBe("");
  expect(loudLines(second.stdout)).toEqual([
    {
      level: 60,
      time: expect.any(Number),
      pid: expect.any(Number),
      hostname: expect.any(String),
      code: "PLANT_STORE_START_FAILED",
      setting: "PORT",
      msg: `plant store failed to start: PORT: 127.0.0.1:${first.port} is already in use: another process listens there, most likely a plant store not yet stopped or still in its shutdown delay (SHUTDOWN_DELAY_MS); stop it, or choose another PORT`,
    },
  ]);
  // The failure is the last line: closing what the start had opened adds none.
  expect(logLines(second.stdout).at(-1)).toMatchObject({ setting: "PORT" });
});

it.each([
  [
    "METRICS_PORT in use",
    "METRICS_PORT",
    async () => ({ METRICS_PORT: String(await takenPort()) }),
    /is already in use/,
  ],
  [
    "HOST not an address of this machine",
    "HOST",
    async () => ({ HOST: "192.0.2.1" }),
    /^plant store failed to start: HOST: 192\.0\.2\.1 is not an address of this machine$/,
  ],
] as const)("%s: exits 1 with one JSON line naming %s", async (_case, setting, envFor, message) => {
  const env = { JWT_SECRET: SECRET, DATABASE_URL: join(tempDir(), "plants.db"), ...(await envFor()) };
  const result = await runServerExpectingExit(env);
  expect(result.code).toBe(1);
  expect(result.stderr).toBe("");
  expect(loudLines(result.stdout)).toEqual([
    expect.objectContaining({
      level: 60,
      code: "PLANT_STORE_START_FAILED",
      setting,
      msg: expect.stringMatching(message),
    }),
  ]);
});

/** Probes and creates against a server still waiting for its store: each answered 503 StoreUnavailable. */
async function probeWhileWaiting(server: ServerProcess): Promise<void> {
  const token = signToken({ secret: SECRET });
  for (let round = 0; round < 3; round++) {
    expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(503);
    const created = await fetch(`${server.baseUrl}/plants`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: '{"id": 1, "name": "Fern"}',
    });
    expect(created.status).toBe(503);
    expect(await created.json()).toMatchObject({ error: ErrorCode.StoreUnavailable });
  }
}

it("while it waits for its database, probes and creates add no warning and no stack: the retries' lines say why, once per attempt", async () => {
  const server = await servers.start({ DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/plants` });
  await probeWhileWaiting(server);
  await server.waitForStdout(/"attempt":2,.*store unavailable at start; retrying/);
  await server.stop();
  await server.outputClosed;

  const lines = logLines(server.stdout());
  const loud = lines.filter((line) => Number(line.level) >= 40);
  expect(loud.length).toBeGreaterThanOrEqual(2);
  for (const line of loud)
    expect(line).toMatchObject({
      level: 40,
      msg: "store unavailable at start; retrying",
      reason: expect.stringMatching(/ECONNREFUSED/),
    });
  const answered = lines.filter(
    (line) => line.msg === "request completed" && (line.res as { statusCode: number }).statusCode === 503,
  );
  expect(answered).toHaveLength(6);
  for (const line of answered) expect(line.level).toBe(30);
  expect(server.stdout()).not.toMatch(/StoreNotOpenError|"stack"/);
});
