import { execFile } from "node:child_process";
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { signToken } from "../src/auth/sign-token.js";
import { startServerProcess } from "./support/server-process.js";
import { tempDir } from "@plant-store/test-support/temp-dir";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const SECRET = "deploy-test-secret-of-at-least-32-chars!";

/**
 * The documented command is `pnpm deploy:server <dir>`: a turbo build, then pnpm deploy. This test task
 * already depends on the build, so it runs the deploy step exactly as the root script spells it.
 */
function deployStep(): string[] {
  const scripts = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).scripts as Record<string, string>;
  const step = scripts["deploy:server"]!.split(" && ").at(-1)!;
  const [command, ...args] = step.split(" ");
  expect(command).toBe("pnpm");
  return args;
}

/** The pnpm running this test (`pnpm run test` sets npm_execpath: pnpm 12's is a native binary), else the one on PATH. */
function pnpm(args: string[]): [string, string[]] {
  const execPath = process.env.npm_execpath;
  if (!execPath || !/pnpm/.test(execPath)) return ["pnpm", args];
  return /\.(c|m)?js$/.test(execPath) ? [process.execPath, [execPath, ...args]] : [execPath, args];
}

/** Every symbolic link under `dir` whose target lies outside it. */
function linksLeaving(dir: string): string[] {
  const root = realpathSync(dir);
  const leaving: string[] = [];
  const walk = (path: string) => {
    for (const entry of readdirSync(path)) {
      const child = join(path, entry);
      const stat = lstatSync(child);
      if (stat.isSymbolicLink()) {
        const target = existsSync(child) ? realpathSync(child) : "(dangling)";
        if (!target.startsWith(root + sep)) leaving.push(`${relative(root, child)} -> ${target}`);
      } else if (stat.isDirectory()) {
        walk(child);
      }
    }
  };
  walk(root);
  return leaving;
}

describe("the deploy artifact", { timeout: 30_000 }, () => {
  let target: string;

  beforeAll(async () => {
    // pnpm deploy wants an empty or missing target: a folder inside a fresh one.
    target = join(tempDir("plant-store-deploy-"), "app");
    const [command, args] = pnpm([...deployStep(), target]);
    await promisify(execFile)(command, args, { cwd: REPO, timeout: 120_000 });
  }, 150_000);

  it("is a folder outside the repo with built JS and production dependencies only", () => {
    expect(relative(REPO, target).startsWith("..")).toBe(true);
    expect(existsSync(join(target, "dist", "main.js"))).toBe(true);
    expect(existsSync(join(target, "src"))).toBe(false);
    expect(existsSync(join(target, "test"))).toBe(false);
    // The tests' and the bench's helpers (scratch databases, filling a store) are built but not shipped.
    expect(existsSync(join(target, "dist", "testing"))).toBe(false);
    const installed = readdirSync(join(target, "node_modules", ".pnpm")).join("\n");
    for (const runtime of ["express@", "kysely@", "prom-client@", "swagger-ui-dist@", "@plant-store+contract@"]) {
      expect(installed).toContain(runtime);
    }
    for (const devOnly of [
      "vitest@",
      "supertest@",
      "playwright-core@",
      "typescript@",
      "@biomejs+",
      "@plant-store+client@",
    ]) {
      expect(installed).not.toContain(devOnly);
    }
  });

  it("holds no native addon, so it runs on any Node 24 or 26 without a build", () => {
    const files = readdirSync(target, { recursive: true, encoding: "utf8" });
    expect(files.filter((file) => file.endsWith(".node") || file.endsWith("binding.gyp"))).toEqual([]);
  });

  it("has no links into the workspace: the contract is a copy with its built dist", () => {
    expect(linksLeaving(target)).toEqual([]);
    const contract = realpathSync(join(target, "node_modules", "@plant-store", "contract"));
    expect(contract.startsWith(realpathSync(target))).toBe(true);
    expect(existsSync(join(contract, "dist", "index.js"))).toBe(true);
  });

  it("runs with plain node from its own folder and creates a plant", async () => {
    const server = await startServerProcess(
      // No load balancer to wait for, nor fetch's idle connection: the stop below ends at once.
      {
        JWT_SECRET: SECRET,
        NODE_ENV: "production",
        DATABASE_URL: "./data/plants.db",
        SHUTDOWN_DELAY_MS: "0",
        KEEP_ALIVE_TIMEOUT_MS: "1000",
      },
      { main: join(target, "dist", "main.js"), cwd: target },
    );
    expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
    const res = await fetch(`${server.baseUrl}/plants`, {
      method: "POST",
      headers: { authorization: `Bearer ${signToken({ secret: SECRET })}`, "content-type": "application/json" },
      body: '{"id": 9007199254740993, "name": "Deployed Monstera"}',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ name: "Deployed Monstera" });
    expect((await fetch(`${server.baseUrl}/docs/swagger-ui-bundle.js`)).status).toBe(200);
    expect(existsSync(join(target, "data", "plants.db"))).toBe(true);

    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  });
});
