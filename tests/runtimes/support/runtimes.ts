import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cleanEnv, run } from "@plant-store/consumer-tests/support/run";

const PINNED = fileURLToPath(new URL("../pinned/", import.meta.url));

/** The versions pinned/package.json pins, which the installed binaries must report. */
export const PINNED_VERSIONS = JSON.parse(readFileSync(join(PINNED, "package.json"), "utf8")).dependencies as {
  bun: string;
  deno: string;
  miniflare: string;
};

export interface Runtimes {
  /** The `deno` executable. */
  deno: string;
  /** The `bun` executable. */
  bun: string;
  /** The folder whose node_modules holds miniflare (and its workerd), for `createRequire`. */
  folder: string;
  /** What each reports of its own version: `deno --version`'s first line, `bun --version`, `workerd --version`. */
  versions: { deno: string; bun: string; workerd: string };
}

/** The first line a program prints for `--version`. */
async function versionOf(file: string, cwd: string): Promise<string> {
  const { stdout } = await run(file, ["--version"], { cwd, env: cleanEnv(), timeoutMs: 30_000 });
  return stdout.trim().split("\n")[0]!.trim();
}

async function describeRuntimes(folder: string): Promise<Runtimes> {
  const bin = join(folder, "node_modules", ".bin");
  const runtimes = { deno: join(bin, "deno"), bun: join(bin, "bun"), folder };
  const [deno, bun, workerd] = await Promise.all([
    versionOf(runtimes.deno, folder),
    versionOf(runtimes.bun, folder),
    versionOf(join(bin, "workerd"), folder),
  ]);
  return { ...runtimes, versions: { deno, bun, workerd } };
}

/**
 * Deno, Bun and miniflare with its workerd, from the npm registry at the versions pinned/package-lock.json records:
 * installed once per lockfile with `npm ci` under the user's cache folder
 * (`$XDG_CACHE_HOME`, else `~/.cache`: `plant-store/runtimes/<hash of the lockfile>`, about 370 MB) and reused by
 * every later run; an install made for another lockfile is removed. Install scripts are skipped, then Bun's and
 * Deno's are run: each puts the binary of its platform package (`@oven/bun-linux-x64`, `@deno/linux-x64-glibc`, …)
 * where its `bin` entry points (Bun's is a placeholder until then). workerd's needs nothing: its `bin` finds it.
 */
export async function installedRuntimes(): Promise<Runtimes> {
  const lockfile = readFileSync(join(PINNED, "package-lock.json"));
  const key = createHash("sha256").update(lockfile).digest("hex").slice(0, 16);
  const cache = join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "plant-store", "runtimes");
  const folder = join(cache, key);
  if (existsSync(join(folder, "installed"))) return describeRuntimes(folder);

  mkdirSync(cache, { recursive: true });
  const staging = mkdtempSync(join(cache, `${key}-installing-`));
  try {
    for (const file of ["package.json", "package-lock.json"]) copyFileSync(join(PINNED, file), join(staging, file));
    await run("npm", ["ci", "--ignore-scripts"], { cwd: staging, env: cleanEnv(), timeoutMs: 300_000 });
    await run(process.execPath, ["install.js"], { cwd: join(staging, "node_modules", "bun"), env: cleanEnv() });
    await run(process.execPath, ["install.cjs"], { cwd: join(staging, "node_modules", "deno"), env: cleanEnv() });
    copyFileSync(join(PINNED, "package-lock.json"), join(staging, "installed"));
    // npm ci made the folder in place; moving it whole makes the install appear at once or not at all.
    rmSync(folder, { recursive: true, force: true });
    renameSync(staging, folder);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  for (const entry of readdirSync(cache)) {
    if (entry !== key) rmSync(join(cache, entry), { recursive: true, force: true });
  }
  return describeRuntimes(folder);
}
