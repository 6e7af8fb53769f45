import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, pnpmCommand, run } from "../support/run.js";
import { npmInstall, tempFolder } from "../support/scratch-project.js";
import { type RunningServer, startServer } from "../support/server-process.js";
import { type Registry, startVerdaccio } from "../support/verdaccio.js";

const PUBLISHED = ["@plant-store/contract", "@plant-store/client"];
const repoRoot = execFileSync("git", ["rev-parse", "--show-toplevel"], {
  cwd: import.meta.dirname,
  encoding: "utf8",
}).trim();
// Where dependencies come from: the registry pnpm uses here (pnpm_config_registry, a user config, or the default).
// Only publishing goes to Verdaccio.
const upstreamRegistry = (() => {
  const pnpm = pnpmCommand();
  return execFileSync(pnpm.file, [...pnpm.prefix, "config", "get", "registry"], {
    cwd: repoRoot,
    encoding: "utf8",
  }).trim();
})();

let work: ReturnType<typeof tempFolder>;
let registry: Registry;
let server: RunningServer;
let clone: string;
let previousVersion: string;
let releasedVersion: string;
let initialReleasePending: boolean;

/**
 * Runs pnpm in the clone with user configs of its own (pnpm reads no npm_config_*: its auth file is
 * npmrcAuthFile, its global config under XDG_CONFIG_HOME), so no credentials of this machine can be used.
 */
async function pnpmInClone(args: string[], env: Record<string, string>) {
  const pnpm = pnpmCommand();
  return run(pnpm.file, [...pnpm.prefix, ...args], { cwd: clone, env: cleanEnv(env), timeoutMs: 300_000 });
}

beforeAll(async () => {
  work = tempFolder("plant-store-release-");
  mkdirSync(join(work.path, "registry"));
  registry = await startVerdaccio(join(work.path, "registry"));
  server = await startServer();

  // A maintainer's checkout: a clone of this repository's committed HEAD, installed and built there.
  clone = join(work.path, "repo");
  await run("git", ["clone", "--quiet", "--no-hardlinks", repoRoot, clone], { cwd: work.path });
  const host = registry.url.replace(/^http:/, "");
  writeFileSync(join(clone, ".npmrc"), `registry=${registry.url}\n${host}:_authToken=${registry.token}\n`);
  const userconfig = join(work.path, "user.npmrc");
  writeFileSync(userconfig, "");
  mkdirSync(join(work.path, "config"));
  const env = {
    pnpm_config_npmrc_auth_file: userconfig,
    XDG_CONFIG_HOME: join(work.path, "config"),
    pnpm_config_registry: registry.url,
    TURBO_TELEMETRY_DISABLED: "1",
  };

  await pnpmInClone(["install", "--frozen-lockfile", "--prefer-offline"], {
    ...env,
    pnpm_config_registry: upstreamRegistry,
  });
  // A changeset of the test's own, as a contributor would add, so there is always something to release;
  // while the initial 1.0.0 changeset is pending it folds into it.
  initialReleasePending = existsSync(join(clone, ".changeset/initial-release.md"));
  previousVersion = JSON.parse(readFileSync(join(clone, "packages/client/package.json"), "utf8")).version;
  writeFileSync(
    join(clone, ".changeset/release-test.md"),
    '---\n"@plant-store/contract": patch\n"@plant-store/client": patch\n---\n\nRelease test.\n',
  );
  // An older released OpenAPI document, so the refresh of the baseline by version-packages shows.
  writeFileSync(join(clone, "packages/contract/openapi.released.json"), '{ "openapi": "3.1.0" }\n');
  await pnpmInClone(["run", "version-packages"], { ...env, pnpm_config_registry: upstreamRegistry });
  releasedVersion = JSON.parse(readFileSync(join(clone, "packages/client/package.json"), "utf8")).version;
  await pnpmInClone(["run", "build"], env);
  // The release script's publish step (its test step is this suite, which would recurse).
  await pnpmInClone(["exec", "changeset", "publish"], env);
}, 600_000);

afterAll(async () => {
  await registry?.stop();
  await server?.stop();
  work?.remove();
});

describe("a release through changesets into a real registry", () => {
  it("changeset version bumps contract and client together (to 1.0.0 from the initial changeset), with changelogs", () => {
    const [major, minor, patch] = previousVersion.split(".").map(Number) as [number, number, number];
    expect(releasedVersion).toBe(initialReleasePending ? "1.0.0" : `${major}.${minor}.${patch + 1}`);
    const contract = JSON.parse(readFileSync(join(clone, "packages/contract/package.json"), "utf8"));
    expect(contract.version).toBe(releasedVersion);
    for (const name of ["contract", "client"]) {
      expect(readFileSync(join(clone, `packages/${name}/CHANGELOG.md`), "utf8")).toContain(`## ${releasedVersion}`);
    }
    expect(existsSync(join(clone, ".changeset/initial-release.md"))).toBe(false);
    expect(existsSync(join(clone, ".changeset/release-test.md"))).toBe(false);
  });

  it("version-packages makes this release's OpenAPI document the baseline pnpm contract:check compares with", () => {
    const contract = join(clone, "packages/contract");
    expect(readFileSync(join(contract, "openapi.released.json"), "utf8")).toBe(
      readFileSync(join(contract, "openapi.json"), "utf8"),
    );
  });

  it("publishes contract and client at that version, with no workspace: range in any published manifest", async () => {
    for (const name of PUBLISHED) {
      const packument = await registry.packument(name);
      expect(packument, `${name} was not published`).toBeDefined();
      const versions = packument!.versions as Record<string, Record<string, unknown>>;
      expect(Object.keys(versions)).toEqual([releasedVersion]);
      expect(JSON.stringify(packument)).not.toContain("workspace:");
      // The package.json inside the tarball is what npm installs; check it too.
      const tarball = await fetch((versions[releasedVersion]!.dist as { tarball: string }).tarball);
      const file = join(work.path, `${name.replace("/", "-")}.tgz`);
      writeFileSync(file, Buffer.from(await tarball.arrayBuffer()));
      const manifest = execFileSync("tar", ["-xzOf", file, "package/package.json"], { encoding: "utf8" });
      expect(manifest).not.toContain("workspace:");
    }
    const client = (await registry.packument("@plant-store/client"))!.versions as Record<
      string,
      { dependencies: Record<string, string> }
    >;
    expect(client[releasedVersion]!.dependencies["@plant-store/contract"]).toBe(`^${releasedVersion}`);
  });

  it("does not publish the private server", async () => {
    expect(await registry.packument("@plant-store/server")).toBeUndefined();
  });

  it("a scratch project installs @plant-store/client@<new version> from the registry and creates a plant on a live server", async () => {
    const project = join(work.path, "consumer");
    mkdirSync(project);
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ name: "release-consumer", private: true, type: "module" }),
    );
    writeFileSync(join(project, ".npmrc"), `@plant-store:registry=${registry.url}\n`);
    await npmInstall(project, [`@plant-store/client@${releasedVersion}`], {
      npm_config_userconfig: join(work.path, "user.npmrc"),
    });
    const installed = JSON.parse(
      readFileSync(join(project, "node_modules/@plant-store/contract/package.json"), "utf8"),
    );
    expect(installed.version).toBe(releasedVersion);

    writeFileSync(
      join(project, "call.mjs"),
      `import { createPlantStoreClient } from "@plant-store/client";
const [baseUrl, token] = process.argv.slice(2);
const client = createPlantStoreClient({ baseUrl, token });
console.log(JSON.stringify(await client.plants.create({ id: 1n, name: "Released", tag: "v1" })));
`,
    );
    const { stdout } = await run(process.execPath, ["call.mjs", server.baseUrl, server.token], { cwd: project });
    expect(JSON.parse(stdout)).toMatchObject({ status: 200, body: { name: "Released", tag: "v1" } });
  }, 180_000);
});
