import type { AdaptiveThrottle, AdaptiveThrottleOptions } from "./adaptive-throttle.js";
import type { RetryBudgetOptions } from "./retry-budget.js";

/** The shape of `fetch` the client calls: the global one, or one you inject. */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/** What `getToken` is told: `forceRefresh` is true once, after the server answered 401 to the last token. */
export interface TokenRequest {
  /** The server refused the last token: return a new one rather than a cached one. */
  forceRefresh: boolean;
}

/** Returns a bearer token; called before every attempt, and once with `forceRefresh` after a 401. */
export type GetToken = (request: TokenRequest) => string | Promise<string>;

/** How to reach and authenticate to a Plant Store server, and how hard to try. */
export interface PlantStoreClientOptions {
  /** The server's base URL, e.g. `https://plants.example.com`. */
  baseUrl: string;
  /** A fixed bearer token. Give this or `getToken`. */
  token?: string;
  /**
   * Returns a bearer token, called before every attempt. After a 401 it is called once with
   * `{ forceRefresh: true }` (shared by all calls waiting on that refresh) and the request is retried once.
   */
  getToken?: GetToken;
  /** Milliseconds one call may take in total, retries and their waits included. Default 30000; 0 for none. */
  timeoutMs?: number;
  /** How many times a call is retried after a network error, 429 or 503. Default 2; 0 turns retrying off. */
  retries?: number;
  /** The first backoff in milliseconds; each retry doubles it, with jitter. Default 200. */
  retryDelayMs?: number;
  /**
   * The longest wait before a retry, in milliseconds. A `Retry-After` longer than this ends retrying
   * and the 429/503 is reported. Default 10000.
   */
  maxRetryDelayMs?: number;
  /** Caps all retries at a share of recent calls (default 0.1 per call of the last 10 s, plus 1 per second); past it the failure is reported at once. */
  retryBudget?: RetryBudgetOptions;
  /**
   * Holds back calls while the server refuses most of them (SRE book adaptive throttling, per origin): a call is
   * refused locally, with PlantStoreThrottledError and no request sent, with probability
   * `max(0, (requests - k * accepts) / (requests + 1))` over the last `windowMs`. Options for this client's own
   * throttle (default `{ k: 2, minRequests: 10, windowMs: 120000, bucketMs: 1000 }`), an AdaptiveThrottle shared with other
   * clients, or `false` to turn it off.
   */
  throttle?: AdaptiveThrottleOptions | AdaptiveThrottle | false;
  /** The fetch to use; defaults to the global fetch of Node or the browser. */
  fetch?: FetchFunction;
}

/** Options for one call. */
export interface CallOptions {
  /** Aborts the call (and any retry wait); the call rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
}
