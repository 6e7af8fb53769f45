import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "client",
          env: { PLANT_STORE_MSW: "3" },
          // test/*.test-d.ts are type tests: tsc checks them (expectTypeOf, @ts-expect-error) as part of `vitest run`.
          typecheck: { enabled: true, include: ["test/**/*.test-d.ts"] },
        },
      },
      // The fakes' tests once more with `msw` resolved to msw 2 (the msw2 alias): the handlers' source, built
      // against msw 3, must work with the oldest msw 2 the peer range allows.
      {
        extends: true,
        resolve: { alias: [{ find: /^msw(\/.*)?$/, replacement: "msw2$1" }] },
        test: { name: "msw 2", include: ["test/fakes.test.ts"], env: { PLANT_STORE_MSW: "2" } },
      },
    ],
  },
});
