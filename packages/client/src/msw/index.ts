export type { PlantStoreHandlers, PlantStoreHandlersOptions } from "./handlers.js";
export { plantStoreHandlers } from "./handlers.js";
export type { FakeControls, FakeFailure, FakeOptions, FakePlant, SeedPlant, StatusFailure, VerifyToken } from "../testing/web.js";
