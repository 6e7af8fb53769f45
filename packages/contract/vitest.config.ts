import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // The property tests run hundreds of generated cases; on a contended host one ran past vitest's 5 s default.
    // The limit only catches a hung test.
    testTimeout: 30_000,
  },
});
