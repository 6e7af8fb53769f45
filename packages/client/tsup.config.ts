import { defineConfig } from "tsup";

export default defineConfig([
  // What Node and bundlers import: ESM and CommonJS with declarations for each; dependencies stay external.
  {
    entry: ["src/index.ts"],
    format: ["esm", "cjs"],
    dts: true,
    clean: true,
    sourcemap: true,
    target: "es2022",
    platform: "neutral",
  },
  // One self-contained ES module for a page without a bundler. platform "browser" makes esbuild fail
  // on any Node-only import, so this build is also the check that the client stays browser-safe.
  {
    entry: { "plant-store-client": "src/index.ts" },
    outDir: "dist/browser",
    format: ["esm"],
    noExternal: [/.*/],
    minify: true,
    sourcemap: true,
    target: "es2022",
    platform: "browser",
  },
]);
