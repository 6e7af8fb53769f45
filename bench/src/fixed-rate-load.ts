// A load generator at a fixed rate, for the soak mode (wrk has no rate limit). It runs as its own
// process so its CPU never counts against the server. argv: <base url> <token> <req/s> <seconds> <first id> [latencies].
// Prints one line: FIXED_RATE_RESULT {"sent":…,"ok":…,"failed":…,"failures":{<status or error code>: count}}; with
// `latencies`, also "startedAt" (epoch ms) and "latencies": [sent at (ms since startedAt), ms to the answer] per 200.
import { Agent, request } from "node:http";

const [baseUrl, token, rateText, secondsText, firstIdText, recordText] = process.argv.slice(2);
if (!baseUrl || !token || !rateText || !secondsText || !firstIdText) {
  throw new Error("usage: node fixed-rate-load.js <base url> <token> <req/s> <seconds> <first id>");
}
const rate = Number(rateText);
const seconds = Number(secondsText);
let nextId = Number(firstIdText);

const TICK_MS = 10;
// Idle sockets are closed after 4 s, before the server's 5 s keep-alive timeout: a socket the server is
// closing just as a burst reuses it fails with ECONNRESET, a race of the client's making, not the server's.
const agent = new Agent({ keepAlive: true, maxSockets: 64, timeout: 4_000 });
const url = new URL("/plants", baseUrl);
let sent = 0;
let ok = 0;
let failed = 0;
let inFlight = 0;
const failures: Record<string, number> = {};
const latencies: [number, number][] | undefined = recordText === "latencies" ? [] : undefined;

function fail(reason: string): void {
  failed++;
  failures[reason] = (failures[reason] ?? 0) + 1;
}

function post(): void {
  const body = `{"id":${nextId++},"name":"Monstera","tag":"tropical"}`;
  sent++;
  inFlight++;
  const sentAt = performance.now();
  const req = request(
    url,
    {
      method: "POST",
      agent,
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", "Content-Length": body.length },
    },
    (res) => {
      res.resume();
      res.on("end", () => {
        inFlight--;
        if (res.statusCode === 200) {
          ok++;
          latencies?.push([Math.round(sentAt - startedAtMono), Math.round((performance.now() - sentAt) * 100) / 100]);
        } else fail(`HTTP ${res.statusCode}`);
      });
    },
  );
  req.on("error", (error: NodeJS.ErrnoException) => {
    inFlight--;
    fail(error.code ?? error.message);
  });
  req.end(body);
}

const started = Date.now();
const startedAtMono = performance.now();

/** Stops sending, waits for the answers in flight, prints the result. */
function finish(): void {
  clearInterval(timer);
  const waiting = setInterval(() => {
    if (inFlight > 0) return;
    clearInterval(waiting);
    agent.destroy();
    const result =
      latencies === undefined
        ? { sent, ok, failed, failures }
        : { sent, ok, failed, failures, startedAt: started, latencies };
    process.stdout.write(`FIXED_RATE_RESULT ${JSON.stringify(result)}\n`);
  }, 50);
}

const timer = setInterval(() => {
  const elapsed = Date.now() - started;
  // Catch up to where the schedule says we should be, so a slow tick does not lower the rate.
  const due = Math.min(Math.floor((elapsed / 1000) * rate), Math.floor(seconds * rate)) - sent;
  for (let i = 0; i < due; i++) post();
  if (elapsed >= seconds * 1000) finish();
}, TICK_MS);
// SIGTERM ends the run early (the backup mode stops it once its backups are done).
process.once("SIGTERM", finish);
