import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";

const run = promisify(execFile);
const realContract = new URL("../../../packages/contract/", import.meta.url).pathname;
const cli = new URL("../dist/cli.js", import.meta.url).pathname;
const fixture = new URL("./fixtures/released-openapi.json", import.meta.url);
const changesetConfig = new URL("../../../.changeset/config.json", import.meta.url);
// biome-ignore lint/suspicious/noExplicitAny: tests edit the document freely.
type Document = any;

const repositories: string[] = [];
afterEach(async () => {
  for (const dir of repositories.splice(0)) await rm(dir, { recursive: true, force: true });
});

/**
 * A scratch monorepo shaped like this one (the contract and the client, this repository's changeset config
 * with its fixed group), with a released document, a current one and some pending changesets.
 */
async function repository(options: { edit?: (document: Document) => void; changesets?: string[]; generate?: (document: Document) => void }) {
  const root = await mkdtemp(join(tmpdir(), "contract-guard-"));
  repositories.push(root);
  const write = async (path: string, content: string) => {
    await mkdir(join(root, path, ".."), { recursive: true });
    await writeFile(join(root, path), content);
  };
  const released = await readFile(fixture, "utf8");
  const current = JSON.parse(released);
  options.edit?.(current);
  await write("package.json", JSON.stringify({ name: "scratch", private: true }));
  await write("pnpm-workspace.yaml", "packages:\n  - packages/*\n");
  await write("packages/contract/package.json", JSON.stringify({ name: "@plant-store/contract", version: "1.0.0" }));
  await write(
    "packages/client/package.json",
    JSON.stringify({ name: "@plant-store/client", version: "1.0.0", dependencies: { "@plant-store/contract": "workspace:^" } }),
  );
  await write(".changeset/config.json", await readFile(changesetConfig, "utf8"));
  for (const [i, changeset] of (options.changesets ?? []).entries()) await write(`.changeset/change-${i}.md`, changeset);
  await write("packages/contract/openapi.released.json", released);
  await write("packages/contract/openapi.json", JSON.stringify(current, null, 2));
  // The contract's build output the guard generates the document with: here it generates the committed
  // document (edited by `generate`, for a contract changed since). The real contract's is built in the last test.
  const generated = structuredClone(current);
  options.generate?.(generated);
  await write("packages/contract/dist/openapi.js", `export const buildOpenApiDocument = () => (${JSON.stringify(generated)});\n`);
  return root;
}

async function check(root: string) {
  try {
    const { stdout } = await run(process.execPath, [cli, "check", root]);
    return { exitCode: 0, lines: stdout.trim().split("\n") };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { exitCode: failed.code, lines: failed.stdout.trim().split("\n") };
  }
}

const changeset = (releases: Record<string, string>, summary: string) =>
  `---\n${Object.entries(releases).map(([name, type]) => `"${name}": ${type}`).join("\n")}\n---\n\n${summary}\n`;
const removeTag = (document: Document) => delete document.components.schemas.Plant.properties.tag;

describe("pnpm contract:check", () => {
  it("passes with no change and no changeset, saying so in one line", async () => {
    const result = await check(await repository({}));
    expect(result).toEqual({
      exitCode: 0,
      lines: ["contract:check passed: The OpenAPI document is unchanged since the last release."],
    });
  });

  it("fails on a breaking change released as minor, listing the change", async () => {
    const root = await repository({
      edit: removeTag,
      changesets: [changeset({ "@plant-store/contract": "minor" }, "Drop the tag.")],
    });
    const result = await check(root);
    expect(result.exitCode).toBe(1);
    expect(result.lines).toEqual([
      "Changes to the API since the last release (packages/contract/openapi.released.json):",
      "  breaking for existing clients: POST /plants 200 response: field `tag` removed",
      "contract:check failed: 1 breaking change pending without a major changeset for @plant-store/contract and @plant-store/client; the plan releases @plant-store/contract (minor) and @plant-store/client (minor). Add one with `pnpm changeset`.",
    ]);
  });

  it("passes a breaking change once a major changeset is pending (the fixed group makes both major)", async () => {
    const root = await repository({
      edit: removeTag,
      changesets: [
        changeset({ "@plant-store/contract": "minor" }, "Drop the tag."),
        changeset({ "@plant-store/client": "major" }, "Plants have no tag any more."),
      ],
    });
    const result = await check(root);
    expect(result.exitCode).toBe(0);
    expect(result.lines.at(-1)).toBe(
      "contract:check passed: 1 breaking change released as major by the pending changesets: @plant-store/contract (major) and @plant-store/client (major).",
    );
  });

  it("fails on a compatible change with no changeset for the contract", async () => {
    const root = await repository({
      edit: (document: Document) => {
        document.components.schemas.NewPlant.properties.price = { type: "integer" };
      },
    });
    const result = await check(root);
    expect(result.exitCode).toBe(1);
    expect(result.lines.at(-1)).toBe(
      "contract:check failed: The OpenAPI document changed (1 compatible change) with no changeset for @plant-store/contract. Add one with `pnpm changeset`.",
    );
  });

  it("release-baseline makes the current document the released one, after which nothing is pending", async () => {
    const root = await repository({ edit: removeTag });
    await run(process.execPath, [cli, "release-baseline", root]);
    expect(await readFile(join(root, "packages/contract/openapi.released.json"), "utf8")).toBe(
      await readFile(join(root, "packages/contract/openapi.json"), "utf8"),
    );
    expect((await check(root)).exitCode).toBe(0);
  });

  it("refuses a committed document the contract no longer generates, naming the command that regenerates it", async () => {
    const root = await repository({
      generate: (document: Document) => {
        document.components.schemas.NewPlant.properties.price = { type: "integer" };
      },
    });
    const result = await check(root);
    expect(result).toEqual({
      exitCode: 1,
      lines: [
        "The contract generates changes that packages/contract/openapi.json does not show yet:",
        "  compatible: POST /plants request body: optional field `price` added",
        "contract:check failed: packages/contract/openapi.json is stale (not what the contract generates now). Regenerate it with `pnpm --filter @plant-store/contract generate:openapi`, commit it, and run `pnpm contract:check` again.",
      ],
    });
  });

  it("as a new user meets it: a required field added to schemas.ts is refused until the document is regenerated", async () => {
    // A scratch repository holding a copy of this repository's contract, built and regenerated with its own scripts.
    const root = await repository({});
    const contract = join(root, "packages/contract");
    await rm(contract, { recursive: true });
    await mkdir(contract, { recursive: true });
    for (const file of ["src", "scripts", "package.json", "tsup.config.ts", "tsconfig.json", "openapi.json", "openapi.released.json"]) {
      await cp(join(realContract, file), join(contract, file), { recursive: true });
    }
    await cp(join(realContract, "../../tsconfig.base.json"), join(root, "tsconfig.base.json"));
    await symlink(join(realContract, "node_modules"), join(contract, "node_modules"));
    const build = () =>
      run(join(contract, "node_modules/.bin/tsup"), ["src/openapi.ts", "--no-config", "--format", "esm", "--target", "es2022"], { cwd: contract });
    await build();
    expect((await check(root)).exitCode).toBe(0);

    const schemas = join(contract, "src/schemas.ts");
    const source = await readFile(schemas, "utf8");
    await writeFile(schemas, source.replace("    ...PlantSchema.shape,\n", "    ...PlantSchema.shape,\n    potSize: z.number().int(),\n"));
    await build();
    const stale = await check(root);
    expect(stale.exitCode).toBe(1);
    expect(stale.lines).toContain("  breaking for existing clients: POST /plants request body: field `potSize` added as required");
    expect(stale.lines.at(-1)).toContain("packages/contract/openapi.json is stale");
    expect(stale.lines.at(-1)).toContain("`pnpm --filter @plant-store/contract generate:openapi`");

    await run(process.execPath, ["scripts/generate-openapi.mjs"], { cwd: contract });
    const regenerated = await check(root);
    expect(regenerated.exitCode).toBe(1);
    expect(regenerated.lines).toContain("  breaking for existing clients: POST /plants request body: field `potSize` added as required");
    expect(regenerated.lines.at(-1)).toMatch(/^contract:check failed: 1 breaking change pending without a major changeset/);
  }, 120_000);
});
