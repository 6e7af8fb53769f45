// A writer committing as the Plant Store's does (WAL, synchronous=FULL, one IMMEDIATE transaction per insert) about
// once a millisecond, for the backup mode: what a snapshot beside it costs a commit, without HTTP in between.
// argv: <database> <first id>. Runs until SIGTERM, then prints COMMIT_PROBE_RESULT {"startedAt":…,"commits":[[ms since
// startedAt, ms the commit took], …]}.
import { DatabaseSync } from "node:sqlite";

const [database, firstIdText] = process.argv.slice(2);
if (!database || !firstIdText) throw new Error("usage: node commit-probe.js <database> <first id>");
const db = new DatabaseSync(database, { timeout: 5_000 });
db.exec("PRAGMA synchronous = FULL");
const insert = db.prepare("INSERT INTO plants (id, name, tag) VALUES (?, ?, NULL)");
let nextId = Number(firstIdText);
const startedAt = Date.now();
const startedAtMono = performance.now();
const commits: [number, number][] = [];
const timer = setInterval(() => {
  const began = performance.now();
  db.exec("BEGIN IMMEDIATE");
  insert.run(nextId++, "probe");
  db.exec("COMMIT");
  commits.push([Math.round(began - startedAtMono), Math.round((performance.now() - began) * 100) / 100]);
}, 1);
process.once("SIGTERM", () => {
  clearInterval(timer);
  db.close();
  process.stdout.write(`COMMIT_PROBE_RESULT ${JSON.stringify({ startedAt, commits })}\n`);
});
