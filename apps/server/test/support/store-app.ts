import type { PlantStore } from "../../src/store/plant-store.js";
import { startTestApp } from "./test-server.js";

/**
 * The real server over a store the test owns, with a valid bearer token for it: `close()` stops the server
 * and leaves the store open for the test to inspect and close itself.
 */
export function appOver(store: PlantStore) {
  const borrowed: PlantStore = {
    create: (plant) => store.create(plant),
    ping: () => store.ping(),
    close: async () => {},
  };
  return startTestApp({ overrides: { store: borrowed } });
}
