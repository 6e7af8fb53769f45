import { plantStoreContract } from "@plant-store/contract";
import { initServer } from "@ts-rest/express";
import { createPlant } from "../plants/create-plant.js";
import type { PlantStore } from "../store/plant-store.js";

/** POST /plants: the contract's NewPlant in, the created (or replayed) Plant out; failures go to the error handler. */
export function plantsRoutes(store: PlantStore) {
  return initServer().router(plantStoreContract, {
    plants: {
      create: async ({ body }) => ({ status: 200, body: await createPlant(store, body) }),
    },
  });
}
