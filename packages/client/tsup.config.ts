import { defineConfig } from "tsup";

export default defineConfig([
  // What Node and bundlers import: ESM and CommonJS with declarations for each; dependencies stay external.
  // `testing` (the fake server, Node only) is its own entry: it shares no module with the client, so
  // dist/index.js stays as it was (test/build-output.test.ts checks it).
  {
    entry: { index: "src/index.ts", testing: "src/testing/index.ts" },
    format: ["esm", "cjs"],
    dts: true,
    clean: true,
    sourcemap: true,
    target: "es2022",
    platform: "neutral",
    external: [/^node:/],
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
    // dist/browser/metafile-esm.json lists every module in the bundle: the test that keeps the OpenAPI
    // generator out of it reads this (the file is left out of the package).
    metafile: true,
  },
]);
