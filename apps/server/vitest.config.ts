import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Many tests start the built server as a process (~3 s each on this shared machine, ~4.5 s with tracing and
    // a collector), which on a slow host ran past vitest's 5 s default. The limit only catches a hung test;
    // the tests' own time bounds stay in their assertions, and speed is the benchmark's business.
    testTimeout: 20_000,
  },
});
