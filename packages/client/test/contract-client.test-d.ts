import {
  type ErrorCode,
  type ErrorCodeNameOf,
  ErrorSchema,
  errorSchemas,
  NewPlantSchema,
  PlantSchema,
  type PlantStoreContract,
  plantStoreContract,
} from "@plant-store/contract";
import { initContract } from "@ts-rest/core";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { createContractClient } from "../src/contract-client.js";
import {
  type CreatePlantResult,
  createPlantStoreClient,
  type NewPlantInput,
  PlantStoreApiError,
  type PlantStoreClient,
} from "../src/index.js";

const c = initContract();
const options = { baseUrl: "http://127.0.0.1:1", token: "t" };
type CreateRoute = PlantStoreContract["plants"]["create"];

describe("the client's surface is the contract's", () => {
  it("has exactly one method and its OrThrow variant per route", () => {
    expectTypeOf<keyof PlantStoreClient>().toEqualTypeOf<"plants">();
    expectTypeOf<keyof PlantStoreClient["plants"]>().toEqualTypeOf<"create" | "createOrThrow">();
  });

  it("a route added to a contract yields a method, with its params and responses", () => {
    const extended = c.router(
      {
        plants: {
          ...plantStoreContract.plants,
          get: {
            method: "GET",
            path: "/plants/:id",
            responses: { 200: PlantSchema, 404: errorSchemas[404] },
          },
        },
      },
      { strictStatusCodes: true },
    );
    const client = createContractClient(extended, options);
    expectTypeOf(client.plants.get).parameter(0).toEqualTypeOf<{ params: { id: string } }>();
    expectTypeOf(client.plants.get).returns.resolves.toHaveProperty("status").toEqualTypeOf<200 | 404>();
    expectTypeOf(client.plants.getOrThrow).returns.resolves.toEqualTypeOf<{ name: string; tag?: string | undefined }>();
    // The Plant Store client has no such method until the contract has the route.
    // @ts-expect-error get is not a route of plantStoreContract
    createPlantStoreClient(options).plants.get;
  });

  it("renaming a field of Plant or Error breaks client code that reads the old name", () => {
    const Renamed = PlantSchema.omit({ name: true }).extend({ title: z.string() });
    const RenamedError = ErrorSchema.omit({ message: true }).extend({ detail: z.string() });
    const renamed = c.router(
      {
        plants: {
          create: {
            method: "POST",
            path: "/plants",
            body: NewPlantSchema,
            responses: { 200: Renamed, 409: RenamedError },
          },
        },
      },
      { strictStatusCodes: true },
    );
    async function readsOldNames() {
      const result = await createContractClient(renamed, options).plants.create({ id: 1, name: "Fern" });
      // @ts-expect-error Plant.name was renamed to title
      if (result.status === 200) return result.body.name;
      // @ts-expect-error Error.message was renamed to detail
      return result.body.message;
    }
    expectTypeOf(readsOldNames).toBeFunction();
  });

  it("the union of statuses is exactly the contract's", () => {
    expectTypeOf<CreatePlantResult["status"]>().toEqualTypeOf<keyof CreateRoute["responses"]>();
    expectTypeOf<CreatePlantResult["status"]>().toEqualTypeOf<
      200 | 400 | 401 | 403 | 408 | 409 | 413 | 429 | 431 | 500 | 503
    >();
  });

  it("narrowing on a status types body.error as that status's codes", () => {
    expectTypeOf<Extract<CreatePlantResult, { status: 409 }>["body"]["error"]>().toEqualTypeOf<
      typeof ErrorCode.PlantIdConflict
    >();
    expectTypeOf<Extract<CreatePlantResult, { status: 409 }>["body"]["error"]>().toEqualTypeOf<40901>();
    expectTypeOf<Extract<CreatePlantResult, { status: 401 }>["body"]["error"]>().toEqualTypeOf<40101 | 40102>();
    expectTypeOf<Extract<CreatePlantResult, { status: 200 }>["body"]>().toEqualTypeOf<{
      name: string;
      tag?: string | undefined;
    }>();
  });

  it("PlantStoreApiError narrows its code by status from the contract's error table", () => {
    const error = new PlantStoreApiError(409, {});
    expectTypeOf(error.code).toEqualTypeOf<"PlantIdConflict" | undefined>();
    const caught = new PlantStoreApiError(Number("503") as number, {});
    if (caught.is(503)) expectTypeOf(caught.code).toEqualTypeOf<ErrorCodeNameOf<503> | undefined>();
    // @ts-expect-error 418 is not a status of the contract's error table
    caught.is(418);
  });

  it("ids accept a bigint or a safe-integer number; the rest of NewPlant is as the contract says", () => {
    expectTypeOf<NewPlantInput>().toEqualTypeOf<{ id: bigint | number; name: string; tag?: string | undefined }>();
  });
});

describe("the fake's failures are typed by the contract's error table", () => {
  it("takes a status's own codes only", async () => {
    const { startFakePlantStore } = await import("../src/testing/index.js");
    const fake = await startFakePlantStore();
    fake.failNext(1, { status: 503, code: "ShuttingDown" });
    fake.failNext(1, { status: 429, code: "RateLimited", retryAfterSeconds: 0 });
    // @ts-expect-error PlantIdConflict is a 409 code, not a 503 one
    fake.failNext(1, { status: 503, code: "PlantIdConflict" });
    // @ts-expect-error 418 is not a status of the contract's error table
    fake.failNext(1, { status: 418 });
  });
});
