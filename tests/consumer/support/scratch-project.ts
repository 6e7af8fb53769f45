import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cleanEnv, pnpmCommand, run } from "./run.js";

const require = createRequire(import.meta.url);
/** The workspace folder of a package this test workspace depends on. */
export const workspaceDir = (name: string) => dirname(require.resolve(`${name}/package.json`));
/** The TypeScript compiler the consumer is checked with: the workspace's own `tsc`, TypeScript 7 (@typescript/native). */
export const tscPath = join(workspaceDir("@typescript/native"), "bin/tsc");

/** A temp folder outside the workspace; `remove()` deletes it. */
export function tempFolder(prefix: string): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Packs a workspace package with `pnpm pack` (which turns workspace: ranges into versions); returns the tarball. */
export async function pack(name: string, destination: string): Promise<string> {
  const pnpm = pnpmCommand();
  const { stdout } = await run(pnpm.file, [...pnpm.prefix, "pack", "--pack-destination", destination], {
    cwd: workspaceDir(name),
    env: cleanEnv(),
  });
  const tarball = stdout.trim().split("\n").pop()!.trim();
  return tarball.startsWith("/") ? tarball : join(destination, tarball);
}

/** Packs the client and the contract it depends on, as a consumer installs them both; returns the two tarballs. */
export function packClient(destination: string): Promise<string[]> {
  return Promise.all(["@plant-store/contract", "@plant-store/client"].map((name) => pack(name, destination)));
}

/** Installs packages into a scratch project with plain npm, as a consumer team would. */
export async function npmInstall(projectDir: string, specs: string[], env: Record<string, string> = {}): Promise<void> {
  await run("npm", ["install", ...specs], { cwd: projectDir, env: cleanEnv(env) });
}
