import { errorCodeName } from "@plant-store/contract";
import { httpErrorFor } from "../errors/http-error-for.js";

/**
 * A failure as OpenTelemetry's error.type: the contract's error name for an answer the server chose
 * (InvalidToken, ValidationFailed, StoreUnavailable…), else the error's class name. Both are few, as
 * error.type must be.
 */
export function errorTypeOf(error: unknown): string {
  const failure = httpErrorFor(error);
  if (failure) return errorCodeName(failure.code) ?? failure.name;
  return error instanceof Error ? error.name : "_OTHER";
}
