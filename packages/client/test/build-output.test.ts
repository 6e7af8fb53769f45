import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// Reads the built files (turbo builds the package before its tests).
const dist = (file: string) => readFileSync(new URL(`../dist/${file}`, import.meta.url), "utf8");

describe("the built package", () => {
  it("ships the fakes as their own entry, in ESM and CommonJS", () => {
    for (const file of ["testing.js", "testing.cjs"])
      expect(dist(file)).toMatch(
        /startFakePlantStore[\s\S]*createFakePlantStore|createFakePlantStore[\s\S]*startFakePlantStore/,
      );
  });

  it("ships a testing entry for browsers and edge runtimes: the fetch fake, nothing of Node's", () => {
    const code = dist("testing-web.js");
    expect(code).toContain("createFakePlantStore");
    expect(code).not.toMatch(/startFakePlantStore|createServer|["']node:/);
  });

  it.each(["msw.js", "msw.cjs"])("%s imports msw, which stays a peer dependency outside the bundle", (file) => {
    expect(dist(file)).toMatch(/from\s*["']msw["']|require\(["']msw["']\)/);
    expect(dist(file)).not.toMatch(/["']node:/);
  });

  it("ships the client for the `worker` condition without an import() of a computed specifier", () => {
    const code = dist("worker.js");
    expect(code).toContain("createPlantStoreClient");
    // miniflare's module walker refuses any import() whose specifier is not a string literal.
    expect(code).not.toMatch(/\bimport\s*\(/);
    expect(code).not.toContain("@opentelemetry/api");
  });

  it.each(["index.js", "index.cjs", "worker.js", "browser/plant-store-client.js"])(
    "%s does not include the fakes, msw or anything of Node's",
    (file) => {
      const code = dist(file);
      expect(code).not.toMatch(/startFakePlantStore|createFakePlantStore|plantStoreHandlers|FailureQueue|createServer/);
      expect(code).not.toMatch(/["']msw["']/);
      expect(code).not.toMatch(/["']node:/);
      // No chunk shared with the testing entry that a bundler would pull in with the client.
      expect(code).not.toMatch(/from\s*["']\.\/(chunk-|testing)/);
    },
  );

  it("has no shared chunks at all", () => {
    expect(readdirSync(new URL("../dist/", import.meta.url)).filter((file) => file.startsWith("chunk-"))).toEqual([]);
  });
});
