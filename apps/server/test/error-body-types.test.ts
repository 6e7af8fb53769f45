import { type ErrorBody, ErrorCode, type ErrorStatus } from "@plant-store/contract";
import { describe, expectTypeOf, it } from "vitest";
import { errorBody } from "../src/http-errors/error-body.js";
import { HttpError, ServiceUnavailableError } from "../src/http-errors/http-errors.js";

// Checked by `pnpm typecheck` (tsc over test/): each @ts-expect-error fails the build if the line compiles.
describe("error bodies are typed by the contract", () => {
  it("a code its status does not allow, or a header it does not send, does not compile", () => {
    // @ts-expect-error PlantIdConflict (40901) is a 409 code, not a 400 one
    new HttpError(400, ErrorCode.PlantIdConflict, "wrong status for this code");
    // @ts-expect-error a 409 carries no Retry-After in the contract
    new HttpError(409, ErrorCode.PlantIdConflict, "conflict", { "Retry-After": "1" });
    // @ts-expect-error ShuttingDown is a 503 code
    new HttpError(401, ErrorCode.ShuttingDown, "not a 401 code");
    // @ts-expect-error 418 is not a status the contract declares
    new HttpError(418, ErrorCode.NotFound, "no such status");
    expectTypeOf(new HttpError(409, ErrorCode.PlantIdConflict, "conflict").code).toEqualTypeOf<40901>();
    expectTypeOf(new ServiceUnavailableError(ErrorCode.StoreUnavailable, "down", 1).headers).toEqualTypeOf<{
      "Retry-After"?: string;
    }>();
  });

  it("the body built from an error is the contract's Error body", () => {
    const body = errorBody(new HttpError(409, ErrorCode.PlantIdConflict, "conflict"));
    expectTypeOf(body).toEqualTypeOf<ErrorBody<ErrorStatus>>();
    expectTypeOf(body).toHaveProperty("message").toEqualTypeOf<string>();
    // @ts-expect-error the contract's Error body has no `detail` field
    body.detail;
  });
});
