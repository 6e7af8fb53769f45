import { RequestTimeoutHeader } from "@plant-store/contract";
import type { ApiFetcher } from "@ts-rest/core";
import type { OriginWindow } from "./adaptive-throttle.js";
import { timeLeftMs } from "./deadline.js";
import { PlantStoreThrottledError } from "./errors.js";
import type { FetchFunction } from "./options.js";
import type { RetryBudget } from "./retry-budget.js";
import { backoffDelay, isRetriedStatus, type RetryPolicy, retryAfterMs, wait } from "./retry-policy.js";
import { serializeBody } from "./serialize-body.js";
import type { TokenSource } from "./token-source.js";
import { traceContextHeaders } from "./trace-context.js";

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!/\bjson\b/i.test(response.headers.get("content-type") ?? "")) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

// Not awaited: nothing waits on the cancellation, and under msw 2 (2.12 to 2.15) cancelling a mocked body never
// settles, which would hang every retry there.
function discard(response: Response): void {
  response.body?.cancel().catch(() => undefined);
}

/** The adaptive throttle's window for the client's origin; absent when the throttle is off. */
export interface ThrottleGate {
  origin: string;
  window: OriginWindow;
}

/**
 * A ts-rest fetcher that sends the body losslessly with a fresh bearer token per attempt, refreshes the
 * token once after a 401, and retries network errors, 429 and 503 with backoff or the server's Retry-After,
 * each retry taken from the client's budget (the refresh after a 401 is not a retry). Every attempt passes the
 * adaptive throttle as it is sent: a first attempt it refuses rejects with PlantStoreThrottledError; a later one
 * it refuses ends the call with the last answer or network error, as a spent retry budget does.
 */
export function createFetcher(
  fetchFn: FetchFunction,
  tokens: TokenSource,
  policy: RetryPolicy,
  budget: RetryBudget,
  throttle: ThrottleGate | undefined,
): ApiFetcher {
  // Retries and the attempt after a token refresh are requests too: the throttle counts and may refuse them.
  const mayResend = () => throttle?.window.refuses() === undefined;
  return async ({ path, method, headers, rawBody, fetchOptions }) => {
    // Refused before anything else: no token, no body, no deposit in the retry budget, no request.
    const refusedAt = throttle?.window.refuses();
    if (refusedAt !== undefined) throw new PlantStoreThrottledError(throttle!.origin, refusedAt);
    // The client always passes the call's deadline signal.
    const signal = fetchOptions?.signal as AbortSignal;
    const body = rawBody === undefined ? undefined : serializeBody(rawBody);
    let retriesDone = 0;
    let refreshedToken: string | undefined;
    let refreshed = false;
    budget.recordCall();

    for (;;) {
      const token = refreshedToken ?? (await tokens.current());
      refreshedToken = undefined;
      // Each attempt states what the call has left, so the server refuses at once what it cannot answer in time.
      const left = timeLeftMs(signal);
      let response: Response;
      try {
        response = await fetchFn(path, {
          method,
          headers: {
            ...headers,
            ...(await traceContextHeaders()),
            ...(left !== undefined && { [RequestTimeoutHeader]: String(left) }),
            authorization: `Bearer ${token}`,
          },
          signal,
          ...(body !== undefined && { body }),
        });
      } catch (error) {
        // No answer: a request the server did not accept, whatever the cause.
        throttle?.window.recordOutcome(false);
        // An abort (the caller's or the timeout) is final; anything else is a network failure.
        if (signal.aborted) throw signal.reason;
        if (retriesDone >= policy.retries || !budget.tryRetry()) throw error;
        await wait(backoffDelay(policy, retriesDone++), signal);
        if (mayResend()) continue;
        throw error;
      }

      // Any answer but a 429 or 503 is one the server accepted, a 4xx or a 500 included.
      throttle?.window.recordOutcome(!isRetriedStatus(response.status));

      if (response.status === 401 && !refreshed && tokens.refreshable && mayResend()) {
        const next = tokens.refresh();
        if (next !== undefined) {
          refreshed = true;
          discard(response);
          refreshedToken = await next;
          continue;
        }
      }

      if (isRetriedStatus(response.status) && retriesDone < policy.retries) {
        const delay = retryAfterMs(response.headers.get("retry-after")) ?? backoffDelay(policy, retriesDone);
        if (delay <= policy.maxRetryDelayMs && budget.tryRetry()) {
          // Read now (a short Error body), to be the call's result if the throttle refuses the retry.
          const refusal = await answer(response, signal);
          retriesDone++;
          await wait(delay, signal);
          if (mayResend()) continue;
          return refusal;
        }
      }

      return answer(response, signal);
    }
  };
}

/** The response as ts-rest takes it, its body read; rejects with the abort reason when the call was cut short. */
async function answer(
  response: Response,
  signal: AbortSignal,
): Promise<{ status: number; body: unknown; headers: Headers }> {
  try {
    return { status: response.status, body: await readBody(response), headers: response.headers };
  } catch (error) {
    throw signal.aborted ? signal.reason : error;
  }
}
