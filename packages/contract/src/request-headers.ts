/** A request header the API reads besides Authorization and Content-Type, by name. */
export type RequestHeaderName = keyof typeof requestHeaders;

/** The header in which @plant-store/client states the time its call has left. */
export const RequestTimeoutHeader = "X-Request-Timeout-Ms";

/**
 * What each optional request header means. Both state a deadline: the server refuses a request it cannot answer
 * before the shorter of them (503 Overloaded with Retry-After) and never starts one already past it.
 */
export const requestHeaders = {
  "X-Request-Id": "An id for the request, echoed back and logged when it is safe to log (else a new UUID is used).",
  [RequestTimeoutHeader]:
    "Milliseconds the caller will wait for the answer (1 to 999999999); @plant-store/client sends what its timeoutMs has left.",
  "X-Envoy-Expected-Rq-Timeout-Ms":
    "Set by Envoy (and Envoy Gateway, Istio) on requests it forwards: milliseconds until it times the request out.",
} as const;
