import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Each file packs, installs and starts its own processes; running them one at a time keeps the
    // two shared cores from being swamped.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 300_000,
  },
});
