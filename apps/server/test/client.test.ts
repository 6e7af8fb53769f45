import { createPlantStoreClient, ErrorCode } from "@plant-store/client";
import { beforeAll, describe, expect, it } from "vitest";
import { type ListeningTestApp, startTestApp } from "./support/test-server.js";

// One server for the file: each test uses ids of its own.
let t: ListeningTestApp;
beforeAll(async () => {
  t = await startTestApp({ listen: true });
});

describe("@plant-store/client against a real listening server", () => {
  it("creates a plant: 200 with the typed Plant", async () => {
    const client = createPlantStoreClient({ baseUrl: t.url, token: t.token });
    const result = await client.plants.create({ id: 1, name: "Monstera", tag: "tropical" });
    expect(result.status).toBe(200);
    if (result.status === 200) expect(result.body).toEqual({ name: "Monstera", tag: "tropical" });
  });

  it("sends bigint ids exactly: 2^53+1 and 2^53 are different plants", async () => {
    const client = createPlantStoreClient({ baseUrl: `${t.url}/`, getToken: async () => t.token });
    expect((await client.plants.create({ id: 9007199254740993n, name: "odd" })).status).toBe(200);
    expect((await client.plants.create({ id: 9007199254740992n, name: "even" })).status).toBe(200);
    const ids = t.rows().map((row) => row.id);
    expect(ids.filter((id) => id > 2n ** 52n)).toEqual([9007199254740992n, 9007199254740993n]);
  });

  it("returns 400 with the contract's Error body for an invalid plant", async () => {
    const client = createPlantStoreClient({ baseUrl: t.url, token: t.token });
    const result = await client.plants.create({ id: 1, name: "" as string, tag: 5 as unknown as string });
    expect(result.status).toBe(400);
    if (result.status === 400) {
      expect(result.body.error).toBe(ErrorCode.ValidationFailed);
      expect(result.body.message).toMatch(/^tag: /);
    }
  });

  it("returns 401 for a bad token", async () => {
    const client = createPlantStoreClient({ baseUrl: t.url, token: "not-a-token" });
    const result = await client.plants.create({ id: 1, name: "Fern" });
    expect(result.status).toBe(401);
    expect(result.body).toEqual({ error: ErrorCode.InvalidToken, message: "token is malformed" });
  });

  it("returns 409 for the same id with different data", async () => {
    const client = createPlantStoreClient({ baseUrl: t.url, token: t.token });
    await client.plants.create({ id: 5, name: "Fern" });
    const result = await client.plants.create({ id: 5, name: "Rose" });
    expect(result.status).toBe(409);
    if (result.status === 409) expect(result.body.error).toBe(ErrorCode.PlantIdConflict);
  });

  it("refuses a number id that is not a safe integer instead of sending a rounded one", async () => {
    const client = createPlantStoreClient({ baseUrl: t.url, token: t.token });
    const before = t.rows();
    await expect(client.plants.create({ id: 2 ** 53 + 2, name: "x" })).rejects.toThrow(RangeError);
    expect(t.rows()).toEqual(before);
  });
});
