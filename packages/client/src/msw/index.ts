export type { PlantStoreHandlers, PlantStoreHandlersOptions } from "./handlers.js";
export { plantStoreHandlers } from "./handlers.js";
export type { FakeControls, FakeOptions } from "../testing/fake-behaviour.js";
export type { VerifyToken } from "../testing/fake-auth.js";
export type { FakePlant, SeedPlant } from "../testing/fake-plants.js";
export type { FakeFailure, StatusFailure } from "../testing/failures.js";
