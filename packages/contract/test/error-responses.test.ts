import { describe, expect, expectTypeOf, it } from "vitest";
import {
  type ErrorBody,
  ErrorCode,
  type ErrorCodeOf,
  errorResponses,
  errorSchemas,
  type ErrorStatus,
  plantStoreContract,
} from "../src/index.js";

const statuses = Object.keys(errorResponses).map(Number) as ErrorStatus[];

describe("the error table: each status and the codes it may carry", () => {
  it("places every ErrorCode under exactly one status, the one its thousands name", () => {
    const placed = statuses.flatMap((status) => errorResponses[status].codes.map((name) => ({ name, status })));
    expect(placed.map(({ name }) => name).sort()).toEqual(Object.keys(ErrorCode).sort());
    for (const { name, status } of placed) expect(Math.floor(ErrorCode[name] / 100), name).toBe(status);
  });

  it("the 409 body accepts PlantIdConflict and refuses every other code", () => {
    expect(errorSchemas[409].parse({ error: 40901, message: "exists" })).toEqual({ error: 40901, message: "exists" });
    expect(errorSchemas[409].safeParse({ error: ErrorCode.ValidationFailed, message: "x" }).success).toBe(false);
  });

  it("the 401 body accepts both token codes and nothing else", () => {
    for (const code of [ErrorCode.MissingToken, ErrorCode.InvalidToken]) {
      expect(errorSchemas[401].safeParse({ error: code, message: "no" }).success).toBe(true);
    }
    expect(errorSchemas[401].safeParse({ error: ErrorCode.InsufficientScope, message: "no" }).success).toBe(false);
  });

  it("the route declares each of its error statuses with that status's schema", () => {
    const { responses } = plantStoreContract.plants.create;
    for (const [status, schema] of Object.entries(responses)) {
      if (status === "200") continue;
      expect(schema, status).toBe(errorSchemas[Number(status) as ErrorStatus]);
    }
  });

  it("types each status's body by its codes", () => {
    expectTypeOf<ErrorCodeOf<409>>().toEqualTypeOf<40901>();
    expectTypeOf<ErrorCodeOf<401>>().toEqualTypeOf<40101 | 40102>();
    expectTypeOf<ErrorBody<503>>().toEqualTypeOf<{ error: 50301 | 50302 | 50303 | 50304; message: string }>();
  });
});
