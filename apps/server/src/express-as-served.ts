// The server's own Express settings and request-path pieces, for bench's baseline (6) "Express as Plant Store
// runs it": the framework floor measured with exactly what app.ts puts on it, so the two differ only in the
// server's work. An entry point of the package (`@plant-store/server/express-as-served`) for that reason alone.
export { expressPrototypes } from "./runtime-internals/express-prototypes.js";
export { jsonResponseFastPath } from "./runtime-internals/json-response-fast-path.js";
export { jsonBody } from "./request-body/json-body.js";
