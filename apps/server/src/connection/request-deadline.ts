import type { IncomingHttpHeaders } from "node:http";
import { RequestTimeoutHeader } from "@plant-store/contract";

/**
 * The headers a caller states its time left in, in milliseconds: Envoy's, which it sets on every request it sends
 * upstream (the route's timeout, or the per-try timeout), so a pod behind Envoy, Envoy Gateway or Istio needs no
 * setting; and @plant-store/client's, which carries what is left of the call's `timeoutMs` on each attempt.
 */
export const DEADLINE_HEADERS = [
  "x-envoy-expected-rq-timeout-ms",
  RequestTimeoutHeader.toLowerCase() as Lowercase<typeof RequestTimeoutHeader>,
] as const;
export type DeadlineHeader = (typeof DEADLINE_HEADERS)[number];

/** Longer than any caller waits (about 11.5 days): a larger value is not a deadline but a mistake. */
const MAX_DEADLINE_MS = 999_999_999;

/** What a request's deadline headers say: the shortest time left they state, and any that could not be read. */
export interface StatedDeadline {
  /** Milliseconds from arrival; undefined when no header states one. */
  timeLeftMs: number | undefined;
  /** The first header present whose value is not a whole number of milliseconds from 1 to 999,999,999. */
  invalid?: { header: DeadlineHeader; value: string };
}

const NONE: StatedDeadline = { timeLeftMs: undefined };

/**
 * Reads the deadline headers strictly: decimal digits only, 1 to 999,999,999. A header that is not (an empty
 * value, a sign, a unit, a fraction, a repeated header, which node:http joins with a comma) states nothing, and the
 * request keeps the server's own timeout: a malformed hint from a proxy never costs the request itself.
 */
export function statedDeadline(headers: IncomingHttpHeaders): StatedDeadline {
  let result = NONE;
  for (const header of DEADLINE_HEADERS) {
    const value = headers[header];
    if (value === undefined) continue;
    const ms = typeof value === "string" && /^[0-9]{1,9}$/.test(value) ? Number(value) : 0;
    if (ms >= 1 && ms <= MAX_DEADLINE_MS) {
      if (result.timeLeftMs === undefined || ms < result.timeLeftMs) result = { ...result, timeLeftMs: ms };
    } else if (result.invalid === undefined) {
      result = { ...result, invalid: { header, value: String(value).slice(0, 64) } };
    }
  }
  return result;
}
