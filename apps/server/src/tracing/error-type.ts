import { errorCodeName } from "@plant-store/contract";
import { HttpError } from "../http-errors/http-errors.js";

/**
 * A failure as OpenTelemetry's error.type: the contract's error name for an answer the server chose
 * (InvalidToken, ValidationFailed, StoreUnavailable…), else the error's class name. Both are few, as
 * error.type must be.
 */
export function errorTypeOf(error: unknown): string {
  if (error instanceof HttpError) return errorCodeName(error.code) ?? error.name;
  return error instanceof Error ? error.name : "_OTHER";
}
