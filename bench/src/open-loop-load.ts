// The overload mode's open loop that opens a connection for each request finding none idle (up to 4,000): the
// connection storm of a client without a bounded pool. src/open-loop.ts runs the loop.
// argv: <base url> <token> <server pid> <first id> <deadline ms> <phases: rate:seconds,rate:seconds,...>
// Prints one line: OPEN_LOOP_RESULT <json of PhaseResult[]>.
import { OpenLoop, parsePhases } from "./open-loop.js";

const MAX_CONNECTIONS = 4_000;

const [baseUrl, token, pidText, firstIdText, deadlineText, phasesText] = process.argv.slice(2);
if (!baseUrl || !token || !pidText || !firstIdText || !deadlineText || !phasesText) {
  throw new Error(
    "usage: node open-loop-load.js <base url> <token> <server pid> <first id> <deadline ms> <rate:seconds,...>",
  );
}
const results = await new OpenLoop({
  url: new URL(baseUrl),
  token,
  pid: Number(pidText),
  firstId: Number(firstIdText),
  deadlineMs: Number(deadlineText),
  phases: parsePhases(phasesText),
  maxConnections: MAX_CONNECTIONS,
  deadlineHeader: false,
}).run();
// Exit only once the line is out: a pipe is written asynchronously.
process.stdout.write(`OPEN_LOOP_RESULT ${JSON.stringify(results)}\n`, () => process.exit(0));
