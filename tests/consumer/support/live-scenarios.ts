import { fileURLToPath } from "node:url";
import { ErrorCode } from "@plant-store/contract";
import { expect } from "vitest";
import { startFaultProxy } from "./fault-proxy.js";
import type { RunningServer } from "./server-process.js";

/** fixtures/scenarios.ts: the consumer code that drives the live server. */
export const LIVE_SCENARIOS = fileURLToPath(new URL("../fixtures/scenarios.ts", import.meta.url));

/**
 * Runs a consumer program built on fixtures/scenarios.ts against the live server and checks every answer: 200,
 * 400, 401 (and a token refresh), 409, a retried 503, a timeout. `runProgram` is given the program's arguments
 * (the server's URL, a proxy that answers the first request 503 with Retry-After: 1 and forwards the retry, a proxy
 * that never answers, a token, the id base) and resolves with what it printed. Returns the parsed output.
 */
export async function checkLiveScenarios(
  server: RunningServer,
  idBase: number,
  runProgram: (args: string[]) => Promise<string>,
): Promise<Record<string, unknown>> {
  const flaky = await startFaultProxy(server.baseUrl, (n) => (n === 0 ? "unavailable" : "forward"));
  const silent = await startFaultProxy(server.baseUrl, () => "hold");
  try {
    const result = JSON.parse(await runProgram([server.baseUrl, flaky.url, silent.url, server.token, String(idBase)]));
    expect(result.created).toEqual({ status: 200, body: { name: "Monstera", tag: "tropical" } });
    expect(result.plant).toEqual({ name: "Fern" });
    expect(result.badRequest).toEqual({ status: 400, error: ErrorCode.ValidationFailed });
    expect(result.denied).toEqual({
      status: 401,
      body: { error: ErrorCode.InvalidToken, message: "token is malformed" },
    });
    expect(result.deniedThrown).toEqual({
      kind: "PlantStoreApiError",
      status: 401,
      code: "InvalidToken",
      message: "token is malformed",
    });
    expect(result.refresh).toEqual({ status: 200, tokenRequests: [false, true] });
    expect(result.conflict).toEqual({ status: 409, code: "PlantIdConflict" });
    expect(result.conflictThrown).toMatchObject({ kind: "PlantStoreApiError", status: 409, code: "PlantIdConflict" });
    expect(result.retry).toMatchObject({ status: 200, attempts: 2 });
    expect(result.retry.retriedAfterMs).toBeGreaterThanOrEqual(1000);
    expect(flaky.seen.map((s) => s.action)).toEqual(["unavailable", "forward"]);
    expect(flaky.seen[0]!.body).toBe(flaky.seen[1]!.body);
    expect(result.timedOut).toEqual({ kind: "PlantStoreTimeoutError", timeoutMs: 300 });
    expect(silent.seen).toHaveLength(1);
    return result;
  } finally {
    await Promise.all([flaky.close(), silent.close()]);
  }
}
