import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Each check spawns the CLI in its own Node process (one also builds a copy of the contract): on two shared
    // cores under the rest of `pnpm test`, vitest's default 5 s was seen running out.
    testTimeout: 30_000,
  },
});
