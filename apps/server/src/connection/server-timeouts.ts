import type { ServerOptions } from "node:http";
import type { Config } from "../config.js";

export type TimeoutConfig = Pick<Config, "HEADERS_TIMEOUT_MS" | "REQUEST_TIMEOUT_MS" | "KEEP_ALIVE_TIMEOUT_MS">;

/**
 * node:http options for the configured connection timeouts: a client must send its headers within
 * HEADERS_TIMEOUT_MS and its whole request within REQUEST_TIMEOUT_MS (slowloris and slow bodies are cut
 * off), and an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT_MS.
 */
export function serverTimeouts(config: TimeoutConfig): ServerOptions {
  return {
    headersTimeout: config.HEADERS_TIMEOUT_MS,
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    keepAliveTimeout: config.KEEP_ALIVE_TIMEOUT_MS,
    // Node enforces the two timeouts only when it sweeps connections, every 30 s by default; sweeping at
    // a quarter of the shorter one keeps the actual cut-off within 25% of what is configured.
    connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(config.HEADERS_TIMEOUT_MS / 4))),
  };
}
