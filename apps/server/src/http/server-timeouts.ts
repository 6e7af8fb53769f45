import { createServer, type RequestListener, type Server } from "node:http";
import type { Config } from "../config.js";
import type { Logger } from "../logger.js";
import { answerClientErrors } from "./client-errors.js";

type TimeoutConfig = Pick<Config, "HEADERS_TIMEOUT_MS" | "REQUEST_TIMEOUT_MS" | "KEEP_ALIVE_TIMEOUT_MS">;

/**
 * The HTTP server with the configured connection timeouts: a client must send its headers within
 * HEADERS_TIMEOUT_MS and its whole request within REQUEST_TIMEOUT_MS (slowloris and slow bodies are cut
 * off), and an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT_MS. Connection-level
 * failures get the contract's JSON Error (see client-errors.ts).
 */
export function createHttpServer(app: RequestListener, config: TimeoutConfig, logger: Logger): Server {
  const server = createServer(
    {
      headersTimeout: config.HEADERS_TIMEOUT_MS,
      requestTimeout: config.REQUEST_TIMEOUT_MS,
      keepAliveTimeout: config.KEEP_ALIVE_TIMEOUT_MS,
      // Node enforces the two timeouts only when it sweeps connections, every 30 s by default; sweeping at
      // a quarter of the shorter one keeps the actual cut-off within 25% of what is configured.
      connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(config.HEADERS_TIMEOUT_MS / 4))),
    },
    app,
  );
  answerClientErrors(server, logger);
  return server;
}
