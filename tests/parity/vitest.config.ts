import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    testTimeout: 30_000,
    // Starting the built server and minting its token.
    hookTimeout: 60_000,
  },
});
