import { join } from "node:path";
import { defineConfig } from "tsup";

export default defineConfig([
  // What Node and bundlers import: ESM and CommonJS with declarations for each; dependencies stay external.
  // `testing` (the fakes, with the HTTP one for Node), `testing-web` (the same without the HTTP server, for the
  // `browser`, `worker` and `edge-light` conditions; the declarations of `testing` import its types) and `msw`
  // (handlers over the same fake) are entries of their own. No splitting: a chunk shared with the client would
  // pull the fake into a bundler's build of it, so each entry carries its own copy of the fake's code and
  // dist/index.js stays as it was (test/build-output.test.ts checks both).
  {
    entry: {
      index: "src/index.ts",
      testing: "src/testing/index.ts",
      "testing-web": "src/testing/web.ts",
      msw: "src/msw/index.ts",
    },
    format: ["esm", "cjs"],
    dts: true,
    clean: true,
    splitting: false,
    sourcemap: true,
    target: "es2022",
    platform: "neutral",
    external: [/^node:/, "msw"],
  },
  // The client for the `worker` condition (Cloudflare Workers; wrangler and miniflare resolve with it): the same
  // code but for src/opentelemetry-api-worker.ts in place of src/opentelemetry-api.ts, so it has no import() of a
  // variable, which miniflare's module walker refuses. Its types are dist/index.d.ts.
  {
    entry: { worker: "src/index.ts" },
    format: ["esm"],
    sourcemap: true,
    target: "es2022",
    platform: "neutral",
    external: [/^node:/],
    esbuildPlugins: [
      {
        name: "opentelemetry-api-worker",
        setup(build) {
          build.onResolve({ filter: /^\.\/opentelemetry-api\.js$/ }, (args) => ({
            path: join(args.resolveDir, "opentelemetry-api-worker.ts"),
          }));
        },
      },
    ],
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
