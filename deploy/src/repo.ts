import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root: the image's build context. */
export const REPO = fileURLToPath(new URL("../../", import.meta.url));
export const CONTAINERFILE = join(REPO, "apps", "server", "Containerfile");
/** The tag `pnpm image:build` gives the image, and the one `pnpm image:test` checks. */
export const LOCAL_TAG = "plant-store-server:local";

interface ServerPackage {
  version: string;
  scripts: Record<string, string>;
  devDependencies: Record<string, string>;
  dependencies: Record<string, string>;
  repository?: string | { url?: string };
}

export function serverPackage(): ServerPackage {
  return JSON.parse(readFileSync(join(REPO, "apps", "server", "package.json"), "utf8")) as ServerPackage;
}

/** The Containerfile's default base image: its `ARG NODE_IMAGE=` line. */
export function defaultNodeImage(): string {
  const match = /^ARG NODE_IMAGE=(\S+)$/m.exec(readFileSync(CONTAINERFILE, "utf8"));
  if (!match?.[1]) throw new Error(`${CONTAINERFILE} has no "ARG NODE_IMAGE=<image>" line`);
  return match[1];
}

/**
 * Where the source lives, for the image's label: the server's `repository`, else git's `origin` when it is a
 * URL (a clone of a local folder names a path on the build machine, which means nothing elsewhere), else "".
 */
export function sourceUrl(): string {
  const repository = serverPackage().repository;
  const url = typeof repository === "string" ? repository : repository?.url;
  if (url) return url;
  const origin = git(["remote", "get-url", "origin"]);
  return /^(https?|ssh|git):\/\/|^[\w.-]+@[\w.-]+:/.test(origin) ? origin : "";
}

/** The commit the image is built from, or "" outside a git checkout. */
export function revision(): string {
  return git(["rev-parse", "HEAD"]);
}

function git(args: string[]): string {
  const result = spawnSync("git", ["-C", REPO, ...args]);
  return result.status === 0 ? result.stdout.toString().trim() : "";
}
