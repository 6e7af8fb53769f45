// The overload mode's open loops, run in a process of their own:
// - through a proxy's bounded keep-alive pool, as Envoy keeps one per upstream: at most <pool size> connections; a
//   request that finds none idle waits in the pool, oldest sent first, until its deadline, when it is dropped there
//   without reaching the server; each request sent carries its remaining time in `x-envoy-expected-rq-timeout-ms`;
// - or the connection storm (`storm`): a new connection for each request finding none idle, up to 4,000, no header.
// Either way a request unanswered at its deadline is aborted, which closes its connection (HTTP/1.1), and another is
// opened. src/open-loop.ts runs the loop.
// argv: <base url> <token> <server pid> <first id> <deadline ms> <pool size | storm> <phases: rate:seconds,...>
// Prints one line: OPEN_LOOP_RESULT <json of PhaseResult[]>.
import { OpenLoop, parsePhases } from "./open-loop.js";

const MAX_CONNECTIONS = 4_000;

const [baseUrl, token, pidText, firstIdText, deadlineText, poolText, phasesText] = process.argv.slice(2);
const pool = poolText === "storm" ? undefined : Number(poolText);
if (!baseUrl || !token || !pidText || !firstIdText || !deadlineText || !phasesText || Number.isNaN(pool)) {
  throw new Error(
    "usage: node open-loop-load.js <base url> <token> <server pid> <first id> <deadline ms> <pool size | storm> <rate:seconds,...>",
  );
}
const results = await new OpenLoop({
  url: new URL(baseUrl),
  token,
  pid: Number(pidText),
  firstId: Number(firstIdText),
  deadlineMs: Number(deadlineText),
  phases: parsePhases(phasesText),
  maxConnections: pool ?? MAX_CONNECTIONS,
  deadlineHeader: pool !== undefined,
}).run();
// Exit only once the line is out: a pipe is written asynchronously.
process.stdout.write(`OPEN_LOOP_RESULT ${JSON.stringify(results)}\n`, () => process.exit(0));
