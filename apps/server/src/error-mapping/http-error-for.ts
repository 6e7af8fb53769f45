import { ErrorCode } from "@plant-store/contract";
import {
  IdentityProviderUnavailableError,
  InsufficientScopeError,
  InvalidTokenError,
  MissingTokenError,
  RateLimitExceededError,
} from "../auth/auth-errors.js";
import { PlantIdConflictError } from "../plants/plant-id-conflict.js";
import { StoreUnavailableError } from "../store/store-unavailable.js";
import { StoreNotOpenError } from "../store/waiting-store.js";
import {
  ConflictError,
  ForbiddenError,
  HttpError,
  ServiceUnavailableError,
  TooManyRequestsError,
  UnauthorizedError,
} from "../http-errors/http-errors.js";

/**
 * The one place a domain error (auth, plants, store) becomes the HTTP failure a client sees; undefined for
 * anything unexpected, which the error handler answers with a generic 500.
 */
export function httpErrorFor(error: unknown): HttpError | undefined {
  if (error instanceof HttpError) return error;
  if (error instanceof MissingTokenError) return new UnauthorizedError(ErrorCode.MissingToken, error.message);
  if (error instanceof InvalidTokenError) return new UnauthorizedError(ErrorCode.InvalidToken, error.message);
  if (error instanceof InsufficientScopeError) return new ForbiddenError(error.requiredScopes);
  if (error instanceof RateLimitExceededError)
    return new TooManyRequestsError(error.limitPerMinute, error.retryAfterSeconds);
  if (error instanceof PlantIdConflictError) return new ConflictError(error.message);
  if (error instanceof StoreUnavailableError) {
    // Not open yet is a state the store's own lines report, not an outage with a cause worth a line per request.
    const cause = error instanceof StoreNotOpenError ? undefined : error;
    return new ServiceUnavailableError(
      ErrorCode.StoreUnavailable,
      "the store is unavailable; retry the same request",
      1,
      cause,
    );
  }
  if (error instanceof IdentityProviderUnavailableError) {
    return new ServiceUnavailableError(ErrorCode.IdentityProviderUnavailable, error.message, 5, error.cause);
  }
  return undefined;
}
