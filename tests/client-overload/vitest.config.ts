import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Each file loads the machine (a fleet against a server held to a share of a core): one at a time, so neither
    // stretches the other. The limit only catches a hung test.
    fileParallelism: false,
    testTimeout: 90_000,
  },
});
