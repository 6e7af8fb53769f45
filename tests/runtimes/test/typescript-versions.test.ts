import { execFile } from "node:child_process";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { writeConsumerProject } from "@plant-store/consumer-tests/support/consumer-project";
import { cleanEnv } from "@plant-store/consumer-tests/support/run";
import { npmInstall, packClient, tempFolder } from "@plant-store/consumer-tests/support/scratch-project";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Each installed side by side in the scratch project under an alias: typescript-5.9.3 is npm:typescript@5.9.3.
const TYPESCRIPT_VERSIONS = ["5.9.3", "6.0.3", "7.0.2"] as const;
// The typings of the oldest Node the client supports.
const NODE_TYPES = "@types/node@22.20.5";

let scratch: ReturnType<typeof tempFolder>;

beforeAll(async () => {
  scratch = tempFolder("plant-store-typescript-");
  const tarballs = await packClient(scratch.path);
  writeConsumerProject(scratch.path);
  for (const file of ["wrong-narrowing.mts", "wrong-narrowing.cts"]) {
    copyFileSync(new URL(`../fixtures/${file}`, import.meta.url), join(scratch.path, "src", file));
  }
  const compilers = TYPESCRIPT_VERSIONS.map((version) => `typescript-${version}@npm:typescript@${version}`);
  await npmInstall(scratch.path, [...tarballs, ...compilers, NODE_TYPES]);
}, 300_000);

afterAll(() => scratch?.remove());

/** Runs one TypeScript's `tsc` in the scratch project; resolves with its exit code and output, even when it fails. */
function tsc(version: string, args: string[]): Promise<{ code: number; stdout: string }> {
  const bin = join(scratch.path, "node_modules", `typescript-${version}`, "bin", "tsc");
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd: scratch.path, env: cleanEnv(), timeout: 120_000 },
      (error, stdout) => {
        resolve({ code: error ? Number(error.code ?? -1) : 0, stdout });
      },
    );
  });
}

describe("a strict TypeScript consumer of the packed client (ESM and CommonJS, skipLibCheck off)", () => {
  it.concurrent.each(TYPESCRIPT_VERSIONS)(
    "TypeScript %s compiles it, and refuses only the wrong narrowing, with TS2322",
    async (version) => {
      expect((await tsc(version, ["--version"])).stdout.trim()).toBe(`Version ${version}`);
      const { code, stdout } = await tsc(version, [
        "-p",
        ".",
        "--noEmit",
        "--strict",
        "--skipLibCheck",
        "false",
        "--pretty",
        "false",
      ]);
      expect(code).not.toBe(0);
      // Every diagnostic there is: none from the consumer code, the client's declarations or its dependencies'.
      expect(stdout.trim().split("\n").sort()).toEqual([
        "src/wrong-narrowing.cts(8,11): error TS2322: Type '40901' is not assignable to type '40004'.",
        "src/wrong-narrowing.mts(7,9): error TS2322: Type '40901' is not assignable to type '40004'.",
      ]);
    },
    180_000,
  );
});
