import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach } from "vitest";

export const run = promisify(execFile);
export const cli = new URL("../../dist/cli.js", import.meta.url).pathname;
const fixture = new URL("../fixtures/released-openapi.json", import.meta.url);
const changesetConfig = new URL("../../../../.changeset/config.json", import.meta.url);
// biome-ignore lint/suspicious/noExplicitAny: tests edit the document freely.
export type Document = any;

const repositories: string[] = [];
afterEach(async () => {
  for (const dir of repositories.splice(0)) await rm(dir, { recursive: true, force: true });
});

/**
 * A scratch monorepo shaped like this one (the contract and the client, this repository's changeset config
 * with its fixed group), with a released document, a current one and some pending changesets.
 */
export async function repository(options: {
  edit?: (document: Document) => void;
  changesets?: string[];
  generate?: (document: Document) => void;
}) {
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
    JSON.stringify({
      name: "@plant-store/client",
      version: "1.0.0",
      dependencies: { "@plant-store/contract": "workspace:^" },
    }),
  );
  await write(".changeset/config.json", await readFile(changesetConfig, "utf8"));
  for (const [i, changeset] of (options.changesets ?? []).entries())
    await write(`.changeset/change-${i}.md`, changeset);
  await write("packages/contract/openapi.released.json", released);
  await write("packages/contract/openapi.json", JSON.stringify(current, null, 2));
  // The contract's build output the guard generates the document with: here it generates the committed
  // document (edited by `generate`, for a contract changed since). The real contract's is built in the last test.
  const generated = structuredClone(current);
  options.generate?.(generated);
  await write(
    "packages/contract/dist/openapi.js",
    `export const buildOpenApiDocument = () => (${JSON.stringify(generated)});\n`,
  );
  return root;
}

export async function check(root: string) {
  try {
    const { stdout } = await run(process.execPath, [cli, "check", root]);
    return { exitCode: 0, lines: stdout.trim().split("\n") };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { exitCode: failed.code, lines: failed.stdout.trim().split("\n") };
  }
}

export const changeset = (releases: Record<string, string>, summary: string) =>
  `---\n${Object.entries(releases)
    .map(([name, type]) => `"${name}": ${type}`)
    .join("\n")}\n---\n\n${summary}\n`;
