import { ErrorCode } from "@plant-store/contract";
import { afterEach, describe, expect, it } from "vitest";
import { createPlantStoreClient, PlantStoreApiError, PlantStoreTimeoutError } from "../src/index.js";
import { startFakePlantStore } from "../src/testing/index.js";
import { mswTransport, type StartedFake, transports } from "./support/fake-transports.js";
import { mswMajor } from "./support/msw-version.js";

let fake: StartedFake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

// Each vitest project has a module graph of its own: in the msw 2 project `msw`, and so the handlers' own
// import of it, is msw 2, while the other project in the same run keeps msw 3.
it(`loads msw ${mswMajor} in this project, the handlers' import of it included`, async () => {
  const { default: manifest } = await import("msw/package.json", { with: { type: "json" } });
  expect(manifest.version.split(".")[0]).toBe(String(mswMajor));
  const { RequestHandler } = await import("msw");
  const { plantStoreHandlers } = await import("../src/msw/index.js");
  for (const handler of plantStoreHandlers().handlers) expect(handler).toBeInstanceOf(RequestHandler);
});

// The msw 2 project runs only the msw transport's tests.
if (mswMajor === 3) {
  describe("startFakePlantStore", () => {
    it("listens on 127.0.0.1, on a free port or a given one", async () => {
      const first = await startFakePlantStore();
      expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const port = Number(new URL(first.url).port);
      await first.close();
      const second = await startFakePlantStore({ port });
      expect(second.url).toBe(`http://127.0.0.1:${port}`);
      await second.close();
    });
  });
}

// The msw 2 project runs only the msw transport; the HTTP and fetch fakes are the same in both projects.
const tested = [...(mswMajor === 3 ? transports : []), mswTransport];

describe.each(tested)("$name", (transport) => {
  async function start(options?: Parameters<typeof transport.start>[0]) {
    fake = await transport.start(options);
    return fake;
  }

  describe("the fake", () => {
    it("records what the client created, ids exact", async () => {
      const store = await start();
      const client = createPlantStoreClient({ ...store.clientFetch, baseUrl: store.baseUrl, token: "any" });
      expect(await client.plants.createOrThrow({ id: 9007199254740993n, name: "Fern", tag: "green" })).toEqual({
        name: "Fern",
        tag: "green",
      });
      expect([...store.plants.values()]).toEqual([{ id: 9007199254740993n, name: "Fern", tag: "green" }]);
    });

    it("seeds plants: an identical create replays 200, a different one is 409", async () => {
      const store = await start({ plants: [{ id: 7, name: "Cactus" }] });
      const client = createPlantStoreClient({ ...store.clientFetch, baseUrl: store.baseUrl, token: "any" });
      expect(await client.plants.create({ id: 7, name: "Cactus" })).toMatchObject({
        status: 200,
        body: { name: "Cactus" },
      });
      const conflict = await client.plants.create({ id: 7, name: "Rose" });
      expect(conflict).toMatchObject({ status: 409, body: { error: ErrorCode.PlantIdConflict } });
      expect(store.plants.get(7n)).toEqual({ id: 7n, name: "Cactus" });
    });

    it("refuses a request without a bearer token, and tokens verifyToken refuses", async () => {
      const store = await start({ verifyToken: (token) => token === "good" });
      const anonymous = await store.fetch(`${store.baseUrl}/plants`, { method: "POST" });
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get("www-authenticate")).toBe('Bearer realm="plant-store"');
      expect(await anonymous.json()).toMatchObject({ error: ErrorCode.MissingToken });
      const refused = createPlantStoreClient({ ...store.clientFetch, baseUrl: store.baseUrl, token: "bad" });
      expect(await refused.plants.create({ id: 1, name: "a" })).toMatchObject({
        status: 401,
        body: { error: ErrorCode.InvalidToken },
      });
      const accepted = createPlantStoreClient({ ...store.clientFetch, baseUrl: store.baseUrl, token: "good" });
      expect((await accepted.plants.create({ id: 1, name: "a" })).status).toBe(200);
    });
  });

  describe("failNext", () => {
    it("answers the next requests 503 and 429 with Retry-After, which the client retries", async () => {
      const store = await start();
      store.failNext(1, { status: 503, retryAfterSeconds: 0 });
      store.failNext(1, { status: 429, code: "RateLimited", retryAfterSeconds: 0 });
      let attempts = 0;
      const client = createPlantStoreClient({
        ...store.clientFetch,
        baseUrl: store.baseUrl,
        getToken: () => `t${++attempts}`,
      });
      expect(await client.plants.createOrThrow({ id: 1, name: "a" })).toEqual({ name: "a" });
      expect(attempts).toBe(3);
    });

    it("answers with the contract's code, the given message and Retry-After as asked", async () => {
      const store = await start();
      store.failNext(1, { status: 503, code: "ShuttingDown", message: "going away", retryAfterSeconds: 30 });
      const response = await store.fetch(`${store.baseUrl}/plants`, { method: "POST" });
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("30");
      expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
      expect(await response.json()).toEqual({ error: ErrorCode.ShuttingDown, message: "going away" });
    });

    it("a 408 closes the connection after it, as the server does", async () => {
      const store = await start();
      store.failNext(1, { status: 408 });
      const response = await store.fetch(`${store.baseUrl}/plants`, { method: "POST" });
      expect(response.status).toBe(408);
      expect(response.headers.get("connection")).toBe("close");
      expect(await response.json()).toMatchObject({ error: ErrorCode.RequestTimeout });
    });

    it("a 500 is not retried and createOrThrow rejects with its code", async () => {
      const store = await start();
      store.failNext(2, { status: 500 });
      const client = createPlantStoreClient({ ...store.clientFetch, baseUrl: store.baseUrl, token: "any" });
      await expect(client.plants.createOrThrow({ id: 1, name: "a" })).rejects.toMatchObject({
        status: 500,
        code: "InternalError",
      });
      await expect(client.plants.createOrThrow({ id: 1, name: "a" })).rejects.toBeInstanceOf(PlantStoreApiError);
      expect(store.plants.size).toBe(0);
    });

    // A real clock here: the HTTP fake's late answer is a real socket's, which a fake clock would not reach.
    it("a late answer runs into the client's timeout", async () => {
      const store = await start();
      store.failNext(1, { delayMs: 2_000 });
      const client = createPlantStoreClient({
        ...store.clientFetch,
        baseUrl: store.baseUrl,
        token: "any",
        timeoutMs: 100,
      });
      await expect(client.plants.create({ id: 1, name: "a" })).rejects.toBeInstanceOf(PlantStoreTimeoutError);
      // The same create again (the id makes it safe) is answered as usual; its own timeout is a generous one, so
      // a busy machine cannot turn this answer into a timeout too.
      expect(await client.plants.createOrThrow({ id: 1, name: "a" }, { timeoutMs: 30_000 })).toEqual({ name: "a" });
    });

    it("a late answer within the timeout is served as usual", async () => {
      const store = await start();
      store.failNext(1, { delayMs: 50 });
      const client = createPlantStoreClient({ ...store.clientFetch, baseUrl: store.baseUrl, token: "any" });
      expect(await client.plants.createOrThrow({ id: 1, name: "a" })).toEqual({ name: "a" });
    });

    it("a lost connection is retried by the client, and rejects once retries run out", async () => {
      const store = await start();
      store.failNext(1, { disconnect: true });
      const client = createPlantStoreClient({
        ...store.clientFetch,
        baseUrl: store.baseUrl,
        token: "any",
        retryDelayMs: 1,
      });
      expect((await client.plants.create({ id: 1, name: "a" })).status).toBe(200);
      store.failNext(3, { disconnect: true });
      await expect(client.plants.create({ id: 2, name: "b" })).rejects.toThrow(TypeError);
      expect([...store.plants.keys()]).toEqual([1n]);
    });

    it("reset() brings back the seeded plants only and drops queued failures", async () => {
      const store = await start({ plants: [{ id: 1n, name: "Seeded" }] });
      const client = createPlantStoreClient({ ...store.clientFetch, baseUrl: store.baseUrl, token: "any", retries: 0 });
      expect((await client.plants.create({ id: 2n, name: "Fern" })).status).toBe(200);
      store.failNext(1, { status: 500 });
      store.reset();
      expect([...store.plants.keys()]).toEqual([1n]);
      expect(await client.plants.create({ id: 2n, name: "Palm" })).toMatchObject({
        status: 200,
        body: { name: "Palm" },
      });
    });

    it("refuses a count that is not a positive whole number", async () => {
      const store = await start();
      expect(() => store.failNext(0, { status: 500 })).toThrow(RangeError);
    });
  });
});
