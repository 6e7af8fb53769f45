import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    testTimeout: 30_000,
    // Starting the built server and minting its token.
    hookTimeout: 60_000,
    // The two projects each start the real server: one after the other, so two starts do not share the cores.
    fileParallelism: false,
    projects: [
      { extends: true, test: { name: "parity", env: { PLANT_STORE_MSW: "3" } } },
      // The scenarios once more through the msw handlers with `msw` resolved to msw 2 (the msw2 alias), the
      // oldest the client's peer range allows.
      {
        extends: true,
        resolve: { alias: [{ find: /^msw(\/.*)?$/, replacement: "msw2$1" }] },
        test: { name: "msw 2", env: { PLANT_STORE_MSW: "2" } },
      },
    ],
  },
});
