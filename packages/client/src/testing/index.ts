export * from "./web.js";
export type { FakePlantStore, FakePlantStoreOptions } from "./http-fake.js";
export { startFakePlantStore } from "./http-fake.js";
