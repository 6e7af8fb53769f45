import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Each file packs and installs its own scratch project; the first run also installs the runtimes.
    testTimeout: 60_000,
    hookTimeout: 300_000,
  },
});
