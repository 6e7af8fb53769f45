import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONSUMER_TSCONFIG } from "../support/consumer-project.js";
import { run } from "../support/run.js";
import { npmInstall, packClient, tempFolder, tscPath } from "../support/scratch-project.js";

// zod's current major: the consumer's own, installed beside the client's tarballs.
const ZOD_4 = "zod@^4.0.0";

let scratch: ReturnType<typeof tempFolder>;

beforeAll(async () => {
  scratch = tempFolder("plant-store-zod4-");
  const tarballs = await packClient(scratch.path);
  writeFileSync(
    join(scratch.path, "package.json"),
    JSON.stringify({ name: "zod4-consumer", private: true, type: "module" }),
  );
  writeFileSync(join(scratch.path, "tsconfig.json"), JSON.stringify(CONSUMER_TSCONFIG));
  mkdirSync(join(scratch.path, "src"));
  copyFileSync(
    fileURLToPath(new URL("../fixtures/zod4-scenario.ts", import.meta.url)),
    join(scratch.path, "src/zod4.mts"),
  );
  await npmInstall(scratch.path, [...tarballs, ZOD_4, "@types/node@^20.19.0"]);
}, 240_000);

afterAll(() => scratch?.remove());

describe("a consumer project on zod 4 with the packed client", () => {
  it("has zod 4 as its own zod", () => {
    const zod = JSON.parse(readFileSync(join(scratch.path, "node_modules/zod/package.json"), "utf8"));
    expect(zod.version).toMatch(/^4\./);
  });

  it("compiles a create from a zod 4 schema's output, and not one with a wrong input (@ts-expect-error)", async () => {
    await run(process.execPath, [tscPath, "-p", "tsconfig.json"], { cwd: scratch.path });
    expect(readFileSync(join(scratch.path, "dist/zod4.mjs"), "utf8")).toContain('from "zod"');
  });

  it("runs the create against the client's fake: int64 ids exact, a wrong input answered 400", async () => {
    const { stdout } = await run(process.execPath, ["dist/zod4.mjs"], { cwd: scratch.path, timeoutMs: 30_000 });
    const result = JSON.parse(stdout);
    expect(result.created).toEqual({ status: 200, body: { name: "Fern", tag: "green" } });
    expect(result.fromNumber).toEqual({ status: 200, body: { name: "Palm" } });
    expect(result.wrong).toMatchObject({
      status: 400,
      body: { error: 40004, message: expect.stringMatching(/^name: /) },
    });
    expect(result.plants).toEqual([
      { id: "9007199254740993", name: "Fern", tag: "green" },
      { id: "2", name: "Palm" },
    ]);
  });
});
