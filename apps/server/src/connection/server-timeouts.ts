import type { ServerOptions } from "node:http";

/** How long a client may take to send its headers and its whole request, and how long an idle connection is kept. */
export interface ConnectionTimeouts {
  headersMs: number;
  requestMs: number;
  keepAliveMs: number;
}

/**
 * node:http options for the connection timeouts: a client must send its headers within `headersMs` and its whole
 * request within `requestMs` (slowloris and slow bodies are cut off), and an idle keep-alive connection is closed
 * after `keepAliveMs`.
 */
export function serverTimeouts({ headersMs, requestMs, keepAliveMs }: ConnectionTimeouts): ServerOptions {
  return {
    headersTimeout: headersMs,
    requestTimeout: requestMs,
    keepAliveTimeout: keepAliveMs,
    // Node enforces the two timeouts only when it sweeps connections, every 30 s by default; sweeping at
    // a quarter of the shorter one keeps the actual cut-off within 25% of what is configured.
    connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(headersMs / 4))),
  };
}
