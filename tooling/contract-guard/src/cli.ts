import { resolve } from "node:path";
import { checkContract, RELEASED_DOCUMENT, releaseBaseline, writeApiReports } from "./check.js";

const [command, root = "."] = process.argv.slice(2);
const repositoryRoot = resolve(root);

if (command === "check") {
  const { ok, lines } = await checkContract(repositoryRoot);
  for (const line of lines) console.log(line);
  process.exitCode = ok ? 0 : 1;
} else if (command === "release-baseline") {
  await releaseBaseline(repositoryRoot);
  console.log(`${RELEASED_DOCUMENT} and the packages' api/ reports are now those of this release.`);
} else if (command === "api-report") {
  for (const path of await writeApiReports(repositoryRoot)) console.log(`wrote ${path}`);
} else {
  console.error("usage: contract-guard check|release-baseline|api-report [repository root]");
  process.exitCode = 2;
}
