import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { build } from "esbuild";
import type { Runtimes } from "./runtimes.js";

/** The export conditions wrangler bundles a Worker with, before `import` and `default`. */
export const WRANGLER_CONDITIONS = ["workerd", "worker", "browser"];

/** The Workers compatibility date the Worker runs with: that of the pinned workerd's release. */
export const COMPATIBILITY_DATE = "2026-07-30";

/**
 * Bundles a Worker's entry in `projectDir` (resolved from its node_modules) into one ES module, as wrangler does,
 * with `conditions`; returns the bundle's path and the installed package files it took in.
 */
export async function bundleWorker(
  projectDir: string,
  entry: string,
  conditions: string[],
): Promise<{ file: string; packageFiles: string[] }> {
  const file = join(projectDir, "dist", `${entry.replace(/\.ts$/, "")}-${conditions.join("-") || "default"}.js`);
  const { metafile } = await build({
    absWorkingDir: projectDir,
    entryPoints: [join(projectDir, entry)],
    outfile: file,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions,
    metafile: true,
    logLevel: "silent",
  });
  const packageFiles = Object.keys(metafile.inputs)
    .map((input) => relative("node_modules", input))
    .filter((input) => input.startsWith("@plant-store/"));
  return { file, packageFiles };
}

/** What of miniflare's API the tests use. */
interface Miniflare {
  ready: Promise<URL>;
  dispatchFetch(url: string): Promise<{ status: number; text(): Promise<string> }>;
  dispose(): Promise<void>;
}

/**
 * Runs a bundled Worker in workerd with the pinned miniflare 4, which finds its modules by walking the bundle's
 * imports from `scriptPath` (nothing listed by hand), and fetches `/` from it once; then stops workerd.
 */
export async function fetchFromWorker(
  runtimes: Runtimes,
  scriptPath: string,
): Promise<{ status: number; body: string }> {
  const { Miniflare } = createRequire(join(runtimes.folder, "package.json"))("miniflare") as {
    Miniflare: new (options: Record<string, unknown>) => Miniflare;
  };
  // Module names are paths relative to modulesRoot (by default the working directory), which workerd keeps below it.
  const miniflare = new Miniflare({
    modules: true,
    scriptPath,
    modulesRoot: dirname(scriptPath),
    compatibilityDate: COMPATIBILITY_DATE,
  });
  try {
    await miniflare.ready;
    const response = await miniflare.dispatchFetch("http://worker.test/");
    return { status: response.status, body: await response.text() };
  } finally {
    await miniflare.dispose();
  }
}
