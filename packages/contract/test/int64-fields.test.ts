import { isAppRoute } from "@ts-rest/core";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { ZodTypeAny } from "zod";
import {
  INT64_MAX,
  INT64_MIN,
  type Int64FieldOf,
  int64BodyFields,
  NEW_PLANT_INT64_FIELDS,
  type NewPlant,
  NewPlantSchema,
  plantStoreContract,
} from "../src/index.js";

// A field is int64 when it takes both ends of int64 as bigint and refuses one past them: found by parsing,
// through zod's public API, not by reading which zod class built the schema.
function takesInt64(field: ZodTypeAny): boolean {
  const takes = (value: unknown) => field.safeParse(value).success;
  return takes(INT64_MIN) && takes(INT64_MAX) && !takes(INT64_MAX + 1n) && !takes(INT64_MIN - 1n);
}

function int64FieldsByParsing(body: unknown): string[] {
  const shape = (body as { shape?: Record<string, ZodTypeAny> }).shape ?? {};
  return Object.keys(shape).filter((name) => takesInt64(shape[name]!));
}

describe("the contract's int64 fields, stated as data", () => {
  it("NEW_PLANT_INT64_FIELDS names exactly the NewPlant fields that take an int64", () => {
    expect([...NEW_PLANT_INT64_FIELDS].sort()).toEqual(int64FieldsByParsing(NewPlantSchema).sort());
    expect(NEW_PLANT_INT64_FIELDS).toEqual(["id"]);
    expectTypeOf<Exclude<Int64FieldOf<NewPlant>, (typeof NEW_PLANT_INT64_FIELDS)[number]>>().toEqualTypeOf<never>();
  });

  it("every route with a body states its body's int64 fields, and exactly those", () => {
    const routes = Object.values(plantStoreContract.plants).filter(isAppRoute);
    expect(routes.length).toBeGreaterThan(0);
    for (const route of routes) {
      const body = "body" in route ? route.body : undefined;
      expect([...int64BodyFields(route)].sort(), `${route.method} ${route.path}`).toEqual(
        int64FieldsByParsing(body).sort(),
      );
    }
  });

  it("a route that states none has none", () => {
    const { metadata: _metadata, ...withoutMetadata } = plantStoreContract.plants.create;
    expect(int64BodyFields(withoutMetadata)).toEqual([]);
    expect(int64BodyFields({ ...withoutMetadata, metadata: { int64BodyFields: "id" } })).toEqual([]);
  });
});
