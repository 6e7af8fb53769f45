import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { REPO } from "./repo.js";

interface Importer {
  dependencies?: Record<string, { version: string }>;
  optionalDependencies?: Record<string, { version: string }>;
  devDependencies?: Record<string, { version: string }>;
}

interface Lockfile {
  importers: Record<string, Importer>;
  snapshots: Record<string, { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> }>;
}

/** `name@version` without pnpm's peer suffix, as the image's node_modules/.pnpm names a package. */
const id = (name: string, version: string) => `${name}@${version.replace(/\(.*$/, "")}`;

/**
 * From pnpm-lock.yaml: every package the server needs in production (its dependencies and theirs, workspace
 * links followed), and the dev-only ones: each workspace's devDependencies that production does not also need.
 */
export function serverPackageSets(): { production: Set<string>; devOnly: Set<string> } {
  const lockfile = parse(readFileSync(join(REPO, "pnpm-lock.yaml"), "utf8")) as Lockfile;
  const production = new Set<string>();
  const visited = new Set<string>();
  const pending: string[] = [];
  const visitImporter = (path: string) => {
    const importer = lockfile.importers[path] ?? {};
    for (const [name, { version }] of Object.entries({ ...importer.dependencies, ...importer.optionalDependencies })) {
      if (version.startsWith("link:")) visitImporter(join(path, version.slice("link:".length)));
      else pending.push(`${name}@${version}`);
    }
  };
  visitImporter("apps/server");
  for (let key = pending.pop(); key !== undefined; key = pending.pop()) {
    if (visited.has(key)) continue;
    visited.add(key);
    const at = key.indexOf("@", 1);
    production.add(id(key.slice(0, at), key.slice(at + 1)));
    const snapshot = lockfile.snapshots[key] ?? {};
    for (const [name, version] of Object.entries({ ...snapshot.dependencies, ...snapshot.optionalDependencies })) {
      pending.push(`${name}@${version}`);
    }
  }
  const devOnly = new Set<string>();
  for (const importer of Object.values(lockfile.importers)) {
    for (const [name, { version }] of Object.entries(importer.devDependencies ?? {})) {
      if (!version.startsWith("link:") && !production.has(id(name, version))) devOnly.add(id(name, version));
    }
  }
  return { production, devOnly };
}
