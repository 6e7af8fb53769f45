import type { NewPlant, Plant } from "@plant-store/contract";
import type { PlantStore } from "../store/plant-store.js";
import { PlantIdConflictError } from "./plant-id-conflict.js";

/**
 * Creates a plant, idempotently by id: a new id is stored, the same id with the same data answers the stored
 * plant again, the same id with other data is a PlantIdConflictError. A StoreUnavailableError passes through.
 */
export async function createPlant(store: PlantStore, plant: NewPlant): Promise<Plant> {
  const outcome = await store.create(plant);
  if (outcome.kind === "conflict") throw new PlantIdConflictError(plant.id);
  return outcome.plant;
}
