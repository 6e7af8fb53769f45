export type { CreatePlantResult, NewPlantInput, PlantStoreClient } from "./client.js";
export { createPlantStoreClient } from "./client.js";
export { PlantStoreApiError, PlantStoreTimeoutError } from "./errors.js";
export type { FetchFunction } from "./fetcher.js";
export type { CallOptions, GetToken, PlantStoreClientOptions, TokenRequest } from "./options.js";
export type { RetryBudgetOptions } from "./retry-budget.js";
export { ErrorCode, errorCodeName } from "@plant-store/contract";
export type { ApiError, ErrorCodeName, Plant } from "@plant-store/contract";
