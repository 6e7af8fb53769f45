import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Each check spawns the CLI in its own Node process: one builds a copy of the contract, those of the TypeScript API
    // load API Extractor and the TypeScript compiler (several seconds each on two shared cores under the rest of
    // `pnpm test`). The limit only catches a hung check.
    testTimeout: 90_000,
  },
});
