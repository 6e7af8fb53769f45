import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

const CYCLONEDX_NPM = fileURLToPath(new URL("../node_modules/.bin/cyclonedx-npm", import.meta.url));

/**
 * Writes the CycloneDX JSON SBOM of a deployed server folder (what `pnpm deploy:server` made) to `output`:
 * its production dependencies, each with version, purl, licenses and integrity. cyclonedx-npm reads the
 * tree through `npm ls`, which reports pnpm's layout (links into node_modules/.pnpm) as errors although it
 * reads every package: those are ignored, and npm's output is shown only if the SBOM is not written.
 */
export function writeSbom(folder: string, output: string): void {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "production" };
  // Under `pnpm run`, npm_execpath is pnpm's; cyclonedx-npm must call npm.
  delete env.npm_execpath;
  const args = ["--ignore-npm-errors", "--omit", "dev", "--output-format", "JSON", "--output-reproducible"];
  args.push("--output-file", resolve(output), "package.json");
  const result = spawnSync(CYCLONEDX_NPM, args, { cwd: resolve(folder), env, encoding: "utf8" });
  if (result.status !== 0) {
    throw new Error(`cyclonedx-npm exited ${result.status ?? result.signal}:\n${result.stderr}${result.stdout}`);
  }
  console.log(`sbom: ${resolve(output)}`);
}
