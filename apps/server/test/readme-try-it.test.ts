import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCli } from "./support/cli-process.js";
import { serverProcesses } from "./support/server-process.js";
import { tempDir } from "@plant-store/test-support/temp-dir";

const README = fileURLToPath(new URL("../../../README.md", import.meta.url));

/** Runs a README command line as a reader's shell would, at the repository's root, with `env` exported. */
function shell(command: string, env: Record<string, string>): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      "bash",
      ["-c", command],
      { cwd: dirname(README), env: { ...process.env, ...env }, timeout: 60_000 },
      (error, stdout) => resolve({ code: error ? ((error.code as number | undefined) ?? 1) : 0, stdout }),
    );
  });
}
const servers = serverProcesses();

/** The variables a README terminal block exports: `export A=1 B=2` lines, in the block that starts with `# <title>`. */
function terminalExports(readme: string, title: string): Record<string, string> {
  const block = new RegExp(`\`\`\`sh\\n# ${title}\\n([^]*?)\`\`\``).exec(readme)?.[1];
  if (block === undefined) throw new Error(`README.md has no sh block starting with "# ${title}"`);
  const assignments = block
    .split("\n")
    .filter((line) => line.startsWith("export "))
    .flatMap((line) => line.slice(7).split(/\s+/));
  return Object.fromEntries(assignments.map((assignment) => assignment.split("=", 2) as [string, string]));
}

const createMonstera = (baseUrl: string, token: string) =>
  fetch(`${baseUrl}/plants`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: '{"id": 1, "name": "Monstera", "tag": "tropical"}',
  });

describe("README's two-terminal recipe, run as written", () => {
  it("both terminals set JWT_REQUIRED_SCOPE alike: the server names the scopes it requires, and pnpm run token grants them", async () => {
    const readme = readFileSync(README, "utf8");
    const terminal1 = terminalExports(readme, "Terminal 1");
    const terminal2 = terminalExports(readme, "Terminal 2");
    expect(terminal2).toEqual(terminal1);
    expect(terminal1.JWT_REQUIRED_SCOPE).toBeDefined();

    const dir = tempDir("plant-store-readme-");
    const server = await servers.start({ ...terminal1, DATABASE_URL: join(dir, "plants.db") });
    const keysLine = JSON.parse(
      server
        .stdout()
        .split("\n")
        .find((line) => line.includes('"token keys loaded"'))!,
    );
    expect(keysLine.requiredScopes).toEqual(terminal1.JWT_REQUIRED_SCOPE!.split(" "));

    // Terminal 2's token, minted by the command inside its curl line's $(...), exactly as written.
    const mint = /\$\((npx -y pnpm@[^)]+)\)/.exec(readme)?.[1];
    expect(mint).toMatch(/ run token$/);
    const token = await shell(mint!, terminal2);
    expect(token.code).toBe(0);
    const created = await createMonstera(server.baseUrl, token.stdout.trim());
    expect(created.status).toBe(200);
    expect(await created.json()).toEqual({ name: "Monstera", tag: "tropical" });

    // What the README warns of: a token minted where JWT_REQUIRED_SCOPE is unset grants no scope.
    const { JWT_REQUIRED_SCOPE: _, ...withoutScope } = terminal2;
    const unscoped = await runCli(["issue-token"], withoutScope);
    const refused = await createMonstera(server.baseUrl, unscoped.stdout.trim());
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { message: string }).message).toBe(
      `token lacks the required scope: ${terminal1.JWT_REQUIRED_SCOPE}`,
    );
  });
});
