import { errorResponses, type ResponseHeaderName } from "@plant-store/contract";

/** When and how long to wait before retrying an attempt. */
export interface RetryPolicy {
  retries: number;
  retryDelayMs: number;
  maxRetryDelayMs: number;
}

// Only answers that say "try again later" are retried: the statuses whose contract entry sends Retry-After
// (429 and 503). 400, 401 (after its one refresh), 403 and 409 would fail the same way again; a repeated
// create is harmless because the id makes it idempotent.
const RETRIED_STATUSES = new Set(
  Object.entries(errorResponses)
    .filter(([, spec]) => (spec.headers as readonly ResponseHeaderName[]).includes("Retry-After"))
    .map(([status]) => Number(status)),
);

/** Whether a response with this status may be retried. */
export function isRetriedStatus(status: number): boolean {
  return RETRIED_STATUSES.has(status);
}

/** Exponential backoff with jitter: half the doubled delay fixed, half random, so clients spread out. */
export function backoffDelay(policy: RetryPolicy, retryIndex: number): number {
  const ceiling = Math.min(policy.maxRetryDelayMs, policy.retryDelayMs * 2 ** retryIndex);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** A Retry-After header (seconds or an HTTP date) in milliseconds from `now`; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
