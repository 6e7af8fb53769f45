// The testing entry for browsers and edge runtimes: everything but the HTTP server, which needs Node.
export type { FakeControls, FakeOptions } from "./fake-behaviour.js";
export type { VerifyToken } from "./fake-auth.js";
export type { FakePlant, SeedPlant } from "./fake-plants.js";
export type { FakeFetch, FetchFakePlantStore } from "./fetch-fake.js";
export { createFakePlantStore } from "./fetch-fake.js";
export type { FakeFailure, StatusFailure } from "./failures.js";
