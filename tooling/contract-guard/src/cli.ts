import { execFileSync } from "node:child_process";
import { join, resolve } from "node:path";
import { checkContract, RELEASED_DOCUMENT, releaseBaseline, writeApiReports } from "./check.js";
import { plannedReleases } from "./pending-release.js";

const [command, root = "."] = process.argv.slice(2);
const repositoryRoot = resolve(root);

if (command === "check") {
  const { ok, lines } = await checkContract(repositoryRoot);
  for (const line of lines) console.log(line);
  process.exitCode = ok ? 0 : 1;
} else if (command === "release-baseline") {
  await releaseBaseline(repositoryRoot);
  console.log(`${RELEASED_DOCUMENT} and the packages' api/ reports are now those of this release.`);
} else if (command === "version-packages") {
  // changeset version (changesets 3) exits 1 when no changeset is pending; a release job runs this on every push.
  const releases = Object.keys(await plannedReleases(repositoryRoot));
  if (releases.length === 0) {
    console.log("version-packages: no pending changesets, nothing to version.");
  } else {
    execFileSync(join(repositoryRoot, "node_modules/.bin/changeset"), ["version"], {
      cwd: repositoryRoot,
      stdio: "inherit",
    });
    await releaseBaseline(repositoryRoot);
    console.log(`${RELEASED_DOCUMENT} and the packages' api/ reports are now those of this release.`);
    // The lockfile follows the new versions. npm_execpath is the pnpm running this script.
    execFileSync(process.env.npm_execpath ?? "pnpm", ["install", "--lockfile-only"], {
      cwd: repositoryRoot,
      stdio: "inherit",
    });
  }
} else if (command === "api-report") {
  for (const path of await writeApiReports(repositoryRoot)) console.log(`wrote ${path}`);
} else {
  console.error("usage: contract-guard check|release-baseline|version-packages|api-report [repository root]");
  process.exitCode = 2;
}
