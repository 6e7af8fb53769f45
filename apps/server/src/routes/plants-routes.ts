import { plantStoreContract } from "@plant-store/contract";
import { initServer } from "@ts-rest/express";
import { createPlant } from "../plants/create-plant.js";
import { bodyAccepted } from "../request-body/body-diagnostics.js";
import type { PlantStore } from "../store/plant-store.js";

/** POST /plants: the contract's NewPlant in, the created (or replayed) Plant out; failures go to the error handler. */
export function plantsRoutes(store: PlantStore) {
  return initServer().router(plantStoreContract, {
    plants: {
      create: async ({ body, req }) => {
        // ts-rest calls the handler only once the body passed the contract's schema.
        if (bodyAccepted.hasSubscribers) bodyAccepted.publish({ req });
        return { status: 200, body: await createPlant(store, body) };
      },
    },
  });
}
