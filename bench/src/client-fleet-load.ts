// The overload mode's 4x row through the project's own client: a fleet of @plant-store/client instances with default
// options but a 2 s timeout, sharing one open-loop schedule (call n goes to client n mod fleet size, when it is due,
// whether or not earlier calls have settled), as its own process so its CPU never counts against the server.
// argv: <base url> <token> <server pid> <first id> <timeout ms> <clients> <rate> <seconds>
// Prints one line: FLEET_RESULT <json of FleetResult>.
import { readFileSync } from "node:fs";
import { createPlantStoreClient } from "@plant-store/client";

export interface FleetResult {
  rate: number;
  seconds: number;
  clients: number;
  timeoutMs: number;
  calls: number;
  /** Calls that resolved 200, per second of the schedule (by due time), and their latencies (ms from due time). */
  okPerSecond: number[];
  okLatenciesMs: number[];
  /** How each other call ended: `status <n>` for a declared status left after the client's retries, else the error's name. */
  outcomes: Record<string, number>;
  /** Latencies (ms from due time) of the calls that ended some other way, by the same key. */
  otherLatenciesMs: Record<string, number[]>;
  /** The longest any call took to settle, and how many settled later than their timeout plus 100 ms. */
  longestSettleMs: number;
  settledLate: number;
  serverCpuSeconds: number;
}

const TICK_MS = 5;

function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function main(): Promise<void> {
  const [baseUrl, token, pidText, firstIdText, timeoutText, clientsText, rateText, secondsText] = process.argv.slice(2);
  if (!baseUrl || !token || !pidText || !firstIdText || !timeoutText || !clientsText || !rateText || !secondsText) {
    throw new Error(
      "usage: node client-fleet-load.js <base url> <token> <server pid> <first id> <timeout ms> <clients> <rate> <seconds>",
    );
  }
  const pid = Number(pidText);
  const timeoutMs = Number(timeoutText);
  const rate = Number(rateText);
  const seconds = Number(secondsText);
  const fleet = Array.from(
    { length: Number(clientsText) },
    () => createPlantStoreClient({ baseUrl, token, timeoutMs }).plants,
  );
  const result: FleetResult = {
    rate,
    seconds,
    clients: fleet.length,
    timeoutMs,
    calls: 0,
    okPerSecond: Array.from({ length: seconds }, () => 0),
    okLatenciesMs: [],
    outcomes: {},
    otherLatenciesMs: {},
    longestSettleMs: 0,
    settledLate: 0,
    serverCpuSeconds: 0,
  };
  const total = Math.round(rate * seconds);
  let nextId = Number(firstIdText);
  const settled: Promise<void>[] = [];
  const call = (n: number, dueAt: number) => {
    const plants = fleet[n % fleet.length]!;
    const id = nextId++;
    const record = (key: string) => {
      const latency = performance.now() - dueAt;
      result.longestSettleMs = Math.max(result.longestSettleMs, latency);
      if (latency > timeoutMs + 100) result.settledLate++;
      if (key === "status 200") {
        result.okLatenciesMs.push(Math.round(latency * 10) / 10);
        const second = Math.floor((n * 1000) / rate / 1000);
        result.okPerSecond[Math.min(seconds - 1, second)]!++;
        return;
      }
      result.outcomes[key] = (result.outcomes[key] ?? 0) + 1;
      const latencies = result.otherLatenciesMs[key] ?? [];
      latencies.push(Math.round(latency * 10) / 10);
      result.otherLatenciesMs[key] = latencies;
    };
    settled.push(
      plants.create({ id, name: "Monstera", tag: "tropical" }).then(
        (answer) => record(`status ${answer.status}`),
        (error: unknown) => record(error instanceof Error ? error.name : "non-Error rejection"),
      ),
    );
  };

  const cpuBefore = cpuSeconds(pid);
  const started = performance.now();
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const now = performance.now();
      // Every call due by now, each timed from when it was due: a late tick does not lower the rate.
      while (result.calls < total) {
        const dueAt = started + (result.calls * 1000) / rate;
        if (dueAt > now) break;
        call(result.calls++, dueAt);
      }
      if (result.calls >= total) {
        clearInterval(tick);
        resolve();
      }
    }, TICK_MS);
  });
  result.serverCpuSeconds = cpuSeconds(pid) - cpuBefore;
  await Promise.all(settled);
  process.stdout.write(`FLEET_RESULT ${JSON.stringify(result)}\n`, () => process.exit(0));
}

main().catch((error: unknown) => {
  process.stderr.write(`client fleet failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
