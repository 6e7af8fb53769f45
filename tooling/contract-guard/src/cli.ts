import { resolve } from "node:path";
import { checkContract, RELEASED_DOCUMENT, releaseBaseline } from "./check.js";

const [command, root = "."] = process.argv.slice(2);
const repositoryRoot = resolve(root);

if (command === "check") {
  const { ok, lines } = await checkContract(repositoryRoot);
  for (const line of lines) console.log(line);
  process.exitCode = ok ? 0 : 1;
} else if (command === "release-baseline") {
  await releaseBaseline(repositoryRoot);
  console.log(`${RELEASED_DOCUMENT} is now the document of this release.`);
} else {
  console.error("usage: contract-guard check|release-baseline [repository root]");
  process.exitCode = 2;
}
