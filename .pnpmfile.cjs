// pnpm loads this file from the repository's root, in a `node` from PATH (the Node the project's scripts run
// on). On a Node outside package.json's `engines`, `pnpm install` stops with this one line before it fetches
// anything (pnpm then adds that the hook exited): pnpm alone only warns, and `pnpm start` then fails on a
// missing built-in (node:sqlite). Only install resolves, so other commands (the client's tests on Node 22 in
// CI) still run.
const { readFileSync } = require("node:fs");
const { join } = require("node:path");

function checkNodeVersion() {
  const range = JSON.parse(readFileSync(join(__dirname, "package.json"), "utf8")).engines.node;
  const majors = [...range.matchAll(/\^(\d+)\./g)].map((match) => match[1]);
  const current = process.versions.node;
  if (majors.includes(current.split(".")[0])) return;
  console.error(
    `Plant Store needs Node.js ${majors.join(" or ")}; this is Node.js ${current}. Install one of those and run the command again.`,
  );
  process.exit(1);
}

module.exports = { hooks: { preResolution: checkNodeVersion } };
