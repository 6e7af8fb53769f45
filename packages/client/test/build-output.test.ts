import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// Reads the built files (turbo builds the package before its tests).
const dist = (file: string) => readFileSync(new URL(`../dist/${file}`, import.meta.url), "utf8");

describe("the built package", () => {
  it("ships the fake as its own entry, in ESM and CommonJS", () => {
    expect(dist("testing.js")).toContain("startFakePlantStore");
    expect(dist("testing.cjs")).toContain("startFakePlantStore");
  });

  it.each(["index.js", "index.cjs", "browser/plant-store-client.js"])("%s does not include the fake or anything of Node's", (file) => {
    const code = dist(file);
    expect(code).not.toMatch(/startFakePlantStore|FailureQueue|createServer/);
    expect(code).not.toMatch(/["']node:/);
    // No chunk shared with the testing entry that a bundler would pull in with the client.
    expect(code).not.toMatch(/from\s*["']\.\/(chunk-|testing)/);
  });

  it("has no shared chunks at all", () => {
    expect(readdirSync(new URL("../dist/", import.meta.url)).filter((file) => file.startsWith("chunk-"))).toEqual([]);
  });
});
