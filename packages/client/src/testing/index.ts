export type { FakePlant, FakePlantStore, FakePlantStoreOptions } from "./fake-plant-store.js";
export { startFakePlantStore } from "./fake-plant-store.js";
export type { FakeFailure, StatusFailure } from "./failures.js";
export type { VerifyToken } from "./fake-auth.js";
