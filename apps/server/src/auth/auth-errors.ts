/** No bearer token came with the request. */
export class MissingTokenError extends Error {
  override name = "MissingTokenError";
  constructor() {
    super("a bearer token is required in the Authorization header");
  }
}

/** Why a token was refused, in words safe to send to the client. */
export class InvalidTokenError extends Error {
  override name = "InvalidTokenError";
}

/** A valid token that lacks a scope every token must grant. */
export class InsufficientScopeError extends Error {
  override name = "InsufficientScopeError";
  constructor(readonly requiredScopes: readonly string[]) {
    super(`token lacks the required scope: ${requiredScopes.join(" ")}`);
  }
}

/** The token's subject has used its requests for this window. */
export class RateLimitExceededError extends Error {
  override name = "RateLimitExceededError";
  constructor(
    readonly limitPerMinute: number,
    readonly retryAfterSeconds: number,
  ) {
    super(`too many requests: the limit is ${limitPerMinute} per minute; retry after ${retryAfterSeconds} s`);
  }
}

/** The identity provider's signing keys cannot be fetched: the token may well be valid, the outage is ours. */
export class IdentityProviderUnavailableError extends Error {
  override name = "IdentityProviderUnavailableError";
  constructor(cause: unknown) {
    super("the identity provider's signing keys cannot be fetched right now; retry later", { cause });
  }
}
