import { join } from "node:path";
import { build } from "esbuild";

/**
 * Bundles a page's entry for the browser, as a front-end team's bundler would: resolved from the scratch project's
 * node_modules (the installed tarballs), with the `browser` export condition; returns the bundle's path.
 */
export async function bundlePage(projectDir: string, entry: string): Promise<string> {
  const outfile = join(projectDir, "dist", entry.replace(/\.ts$/, ".js"));
  await build({
    absWorkingDir: projectDir,
    entryPoints: [join(projectDir, "src", entry)],
    outfile,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    logLevel: "silent",
  });
  return outfile;
}
