import cors from "cors";
import type { RequestHandler } from "express";

/**
 * CORS for browser clients on the listed origins only (CORS_ORIGINS); any other origin gets no
 * Access-Control-Allow-Origin, so browsers refuse to show it the response. An empty list allows none.
 */
export function corsAllowlist(origins: readonly string[]): RequestHandler {
  return cors({
    origin: [...origins],
    methods: ["GET", "POST"],
    allowedHeaders: ["Authorization", "Content-Type", "X-Request-Id"],
    // The client reads Retry-After to pace retries and WWW-Authenticate to explain a 401.
    exposedHeaders: ["Retry-After", "WWW-Authenticate", "X-Request-Id"],
    maxAge: 600,
  });
}
