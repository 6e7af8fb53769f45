export { ErrorCode, errorCodeName } from "./error-codes.js";
export type { ErrorCodeName, ErrorCodeValue } from "./error-codes.js";
export { errorResponses, errorSchemas, responseHeaders } from "./error-responses.js";
export type { ErrorBody, ErrorCodeNameOf, ErrorCodeOf, ErrorStatus, ResponseHeaderName } from "./error-responses.js";
export { plantStoreContract } from "./router.js";
export type { PlantStoreContract } from "./router.js";
export { ErrorSchema, INT64_MAX, INT64_MIN, NewPlantSchema, PlantSchema } from "./schemas.js";
export type { ApiError, NewPlant, Plant } from "./schemas.js";
