import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
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
  const added = addUnreachedPackages(resolve(folder), resolve(output));
  if (added.length > 0)
    console.log(`sbom: added ${added.length} package(s) npm's tree does not reach: ${added.join(", ")}`);
  console.log(`sbom: ${resolve(output)}`);
}

interface Component {
  type: string;
  "bom-ref"?: string;
  group?: string;
  name: string;
  version: string;
  purl?: string;
  licenses?: { license: { id?: string; name?: string } }[];
  components?: Component[];
}

/**
 * pnpm links an optional peer (debug's supports-color) wherever the lockfile resolved one, but npm's tree, which
 * cyclonedx-npm reads, has no place for a peer its dependent's package.json does not list: such packages are in
 * node_modules/.pnpm and missing from the SBOM. Each is added as a component from its own package.json, so the SBOM
 * lists every package the folder holds. Returns them as name@version.
 */
function addUnreachedPackages(folder: string, output: string): string[] {
  const bom = JSON.parse(readFileSync(output, "utf8")) as { components?: Component[] };
  const listed = new Set<string>();
  const walk = (components: Component[]) => {
    for (const component of components) {
      listed.add(`${component.group ? `${component.group}/` : ""}${component.name}@${component.version}`);
      walk(component.components ?? []);
    }
  };
  walk(bom.components ?? []);
  const store = join(folder, "node_modules", ".pnpm");
  const added: Component[] = [];
  // node_modules/.pnpm/<name>@<version>[_<peers>], scope slash as "+"; workspace packages are file+<path>.
  for (const entry of readdirSync(store).sort()) {
    const at = entry.indexOf("@", 1);
    if (at === -1 || entry.slice(at + 1).startsWith("file+")) continue;
    const name = entry.slice(0, at).replace("+", "/");
    const version = entry.slice(at + 1).replace(/_.*$/, "");
    if (listed.has(`${name}@${version}`)) continue;
    const manifest = JSON.parse(readFileSync(join(store, entry, "node_modules", name, "package.json"), "utf8")) as {
      license?: string;
    };
    const slash = name.indexOf("/");
    const group = name.startsWith("@") ? name.slice(0, slash) : undefined;
    const bare = group ? name.slice(slash + 1) : name;
    const purl = `pkg:npm/${group ? `${encodeURIComponent(group)}/` : ""}${bare}@${version}`;
    added.push({
      type: "library",
      "bom-ref": purl,
      ...(group && { group }),
      name: bare,
      version,
      purl,
      ...(manifest.license && { licenses: [{ license: { id: manifest.license } }] }),
    });
    listed.add(`${name}@${version}`);
  }
  if (added.length > 0) {
    bom.components = [...(bom.components ?? []), ...added];
    writeFileSync(output, `${JSON.stringify(bom, null, 2)}\n`);
  }
  return added.map(
    (component) => `${component.group ? `${component.group}/` : ""}${component.name}@${component.version}`,
  );
}
