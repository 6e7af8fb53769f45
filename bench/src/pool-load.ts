// The overload mode's open loop through a proxy's bounded keep-alive pool, as Envoy keeps one per upstream: at most
// <pool size> connections; a request that finds none idle waits in the pool, oldest sent first, until its deadline,
// when it is dropped there without reaching the server; each request sent carries its remaining time in
// `x-envoy-expected-rq-timeout-ms`; a request unanswered at its deadline is aborted, which closes its connection
// (HTTP/1.1), and the pool opens another. src/open-loop.ts runs the loop.
// argv: <base url> <token> <server pid> <first id> <deadline ms> <pool size> <phases: rate:seconds,...>
// Prints one line: POOL_RESULT <json of PhaseResult[]>.
import { OpenLoop, parsePhases } from "./open-loop.js";

const [baseUrl, token, pidText, firstIdText, deadlineText, poolText, phasesText] = process.argv.slice(2);
if (!baseUrl || !token || !pidText || !firstIdText || !deadlineText || !poolText || !phasesText) {
  throw new Error(
    "usage: node pool-load.js <base url> <token> <server pid> <first id> <deadline ms> <pool size> <rate:seconds,...>",
  );
}
const results = await new OpenLoop({
  url: new URL(baseUrl),
  token,
  pid: Number(pidText),
  firstId: Number(firstIdText),
  deadlineMs: Number(deadlineText),
  phases: parsePhases(phasesText),
  maxConnections: Number(poolText),
  deadlineHeader: true,
}).run();
// Exit only once the line is out: a pipe is written asynchronously.
process.stdout.write(`POOL_RESULT ${JSON.stringify(results)}\n`, () => process.exit(0));
