import { ErrorCode, plantStoreContract } from "@plant-store/contract";
import { initServer } from "@ts-rest/express";
import { ConflictError, ServiceUnavailableError } from "../errors/http-errors.js";
import type { PlantStore } from "../store/plant-store.js";
import { StoreUnavailableError } from "../store/store-unavailable.js";

/** POST /plants: the contract's NewPlant in, the store's outcome out as the contract's Plant. */
export function createPlantsRouter(store: PlantStore) {
  return initServer().router(plantStoreContract, {
    plants: {
      create: async ({ body }) => {
        const outcome = await store.create(body).catch((error: unknown) => {
          if (!(error instanceof StoreUnavailableError)) throw error;
          throw new ServiceUnavailableError(ErrorCode.StoreUnavailable, "the store is unavailable; retry the same request", {
            retryAfterSeconds: 1,
            cause: error,
          });
        });
        if (outcome.kind === "conflict") {
          throw new ConflictError(`a plant with id ${body.id} already exists with a different name or tag`);
        }
        return { status: 200, body: outcome.plant };
      },
    },
  });
}
