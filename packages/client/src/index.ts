export type { CallOptions, CreatePlantResult, NewPlantInput, PlantStoreClient, PlantStoreClientOptions } from "./client.js";
export { createPlantStoreClient } from "./client.js";
export type { FetchFunction } from "./fetcher.js";
export { ErrorCode, errorCodeName } from "@plant-store/contract";
export type { ApiError, ErrorCodeName, Plant } from "@plant-store/contract";
