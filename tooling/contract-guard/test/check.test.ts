import { cp, mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { changeset, check, cli, type Document, repository, run } from "./support/scratch-repository.js";

const realContract = new URL("../../../packages/contract/", import.meta.url).pathname;

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
    for (const file of [
      "src",
      "scripts",
      "package.json",
      "tsup.config.ts",
      "tsconfig.json",
      "openapi.json",
      "openapi.released.json",
    ]) {
      await cp(join(realContract, file), join(contract, file), { recursive: true });
    }
    await cp(join(realContract, "../../tsconfig.base.json"), join(root, "tsconfig.base.json"));
    // The scratch repository's release is the contract as it stands, whatever the real one has pending since its own.
    await cp(join(contract, "openapi.json"), join(contract, "openapi.released.json"));
    // Only the OpenAPI document is built here: the contract's TypeScript API has its own tests (api-check.test.ts).
    const manifest = JSON.parse(await readFile(join(contract, "package.json"), "utf8"));
    delete manifest.exports;
    await writeFile(join(contract, "package.json"), JSON.stringify(manifest));
    await symlink(join(realContract, "node_modules"), join(contract, "node_modules"));
    const build = () =>
      run(
        join(contract, "node_modules/.bin/tsup"),
        ["src/openapi.ts", "--no-config", "--format", "esm", "--target", "es2022"],
        { cwd: contract },
      );
    await build();
    expect((await check(root)).exitCode).toBe(0);

    const schemas = join(contract, "src/schemas.ts");
    const source = await readFile(schemas, "utf8");
    await writeFile(
      schemas,
      source.replace("    ...PlantSchema.shape,\n", "    ...PlantSchema.shape,\n    potSize: z.number().int(),\n"),
    );
    await build();
    const stale = await check(root);
    expect(stale.exitCode).toBe(1);
    expect(stale.lines).toContain(
      "  breaking for existing clients: POST /plants request body: field `potSize` added as required",
    );
    expect(stale.lines.at(-1)).toContain("packages/contract/openapi.json is stale");
    expect(stale.lines.at(-1)).toContain("`pnpm --filter @plant-store/contract generate:openapi`");

    await run(process.execPath, ["scripts/generate-openapi.mjs"], { cwd: contract });
    const regenerated = await check(root);
    expect(regenerated.exitCode).toBe(1);
    expect(regenerated.lines).toContain(
      "  breaking for existing clients: POST /plants request body: field `potSize` added as required",
    );
    expect(regenerated.lines.at(-1)).toMatch(
      /^contract:check failed: 1 breaking change pending without a major changeset/,
    );
  }, 120_000);
});

describe("pnpm version-packages", () => {
  it("with no pending changeset says so, exits 0 and changes nothing", async () => {
    const root = await repository({});
    const files = [
      "packages/contract/package.json",
      "packages/client/package.json",
      "packages/contract/openapi.released.json",
    ];
    const before = await Promise.all(files.map((file) => readFile(join(root, file), "utf8")));
    const { stdout } = await run(process.execPath, [cli, "version-packages", root]);
    expect(stdout.trim()).toBe("version-packages: no pending changesets, nothing to version.");
    expect(await Promise.all(files.map((file) => readFile(join(root, file), "utf8")))).toEqual(before);
  });
});
