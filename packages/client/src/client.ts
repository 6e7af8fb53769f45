import { type PlantStoreContract, plantStoreContract } from "@plant-store/contract";
import { type ContractClient, createContractClient, type RouteInput, type RouteResult } from "./contract-client.js";
import type { PlantStoreClientOptions } from "./options.js";

/** The Plant Store client: for every route of the contract a method and its `…OrThrow` variant (`plants.create`, `plants.createOrThrow`). */
export type PlantStoreClient = ContractClient<PlantStoreContract>;

/** A plant to create. `id` is an int64: pass a bigint for ids beyond Number.MAX_SAFE_INTEGER. */
export type NewPlantInput = RouteInput<PlantStoreContract["plants"]["create"]>;

/** Every response POST /plants can give, typed by status, as the contract declares them. */
export type CreatePlantResult = RouteResult<PlantStoreContract["plants"]["create"]>;

/** Creates a typed client for the Plant Store API at `options.baseUrl`. */
export function createPlantStoreClient(options: PlantStoreClientOptions): PlantStoreClient {
  return createContractClient(plantStoreContract, options);
}
