import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // test/*.test-d.ts are type tests: tsc checks them (expectTypeOf, @ts-expect-error) as part of `vitest run`.
    typecheck: { enabled: true, include: ["test/**/*.test-d.ts"] },
  },
});
