export type { CreatePlantResult, NewPlantInput, PlantStoreClient } from "./client.js";
export { createPlantStoreClient } from "./client.js";
export type { AdaptiveThrottleOptions, AdaptiveThrottleStats } from "./adaptive-throttle.js";
export { AdaptiveThrottle } from "./adaptive-throttle.js";
export { PlantStoreApiError, PlantStoreThrottledError, PlantStoreTimeoutError } from "./errors.js";
export type { CallOptions, FetchFunction, GetToken, PlantStoreClientOptions, TokenRequest } from "./options.js";
export type { RetryBudgetOptions } from "./retry-budget.js";
export { ErrorCode, errorCodeName } from "@plant-store/contract";
export type { ApiError, ErrorCodeName, Plant } from "@plant-store/contract";
