import type { GetToken, PlantStoreClientOptions } from "./options.js";

/** Where bearer tokens come from: one per attempt, and a refresh shared by every call that got a 401. */
export interface TokenSource {
  current(): Promise<string>;
  /** Whether refresh() can give a new token (with getToken), so a 401 may be answered by one more attempt. */
  refreshable: boolean;
  /** A new token after a 401; undefined when the token is fixed and cannot be refreshed. */
  refresh(): Promise<string> | undefined;
}

function sharedRefresh(getToken: GetToken): () => Promise<string> {
  let inFlight: Promise<string> | undefined;
  return () => {
    // Calls whose 401s arrive while a refresh is running wait for that one instead of starting their own.
    inFlight ??= (async () => {
      try {
        return await getToken({ forceRefresh: true });
      } finally {
        inFlight = undefined;
      }
    })();
    return inFlight;
  };
}

/** The token source for the client's options; throws when neither `token` nor `getToken` is given. */
export function createTokenSource(options: Pick<PlantStoreClientOptions, "token" | "getToken">): TokenSource {
  const { token, getToken } = options;
  if (getToken) {
    const refresh = sharedRefresh(getToken);
    return { current: async () => getToken({ forceRefresh: false }), refreshable: true, refresh };
  }
  if (token !== undefined) return { current: async () => token, refreshable: false, refresh: () => undefined };
  throw new TypeError("createPlantStoreClient needs a token or a getToken function");
}
