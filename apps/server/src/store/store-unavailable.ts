/**
 * The store could not be reached, or did not answer in time. Whether the create was committed is
 * unknown, so the client is told to retry: the id makes a retry safe (a replay answers 200).
 */
export class StoreUnavailableError extends Error {
  override name = "StoreUnavailableError";
}
