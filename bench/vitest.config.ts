import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Every test here starts the built bench (and most, servers and wrk) as processes; on a slow or contended host
    // even a refusal's start ran past vitest's 5 s default. The limit only catches a hung test: figures are the
    // bench's output, never a pass condition.
    testTimeout: 60_000,
  },
});
