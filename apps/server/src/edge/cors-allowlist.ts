import cors from "cors";
import { RequestTimeoutHeader } from "@plant-store/contract";
import type { RequestHandler } from "express";

/**
 * CORS for browser clients on the listed origins only (CORS_ORIGINS); any other origin gets no
 * Access-Control-Allow-Origin, so browsers refuse to show it the response. A request without an Origin
 * header is not a browser's cross-origin request: it passes through untouched (an OPTIONS without Origin
 * is not a preflight and gets the contract's 404, not an empty 204).
 */
export function corsAllowlist(origins: readonly string[]): RequestHandler {
  const handler = cors({
    origin: [...origins],
    methods: ["GET", "POST"],
    // The client states its call's time left in RequestTimeoutHeader on every request.
    allowedHeaders: ["Authorization", "Content-Type", "X-Request-Id", RequestTimeoutHeader],
    // The client reads Retry-After to pace retries and WWW-Authenticate to explain a 401; a browser app may
    // read its quota from the IETF RateLimit fields (sent when RATE_LIMIT_PER_MINUTE is set).
    exposedHeaders: ["Retry-After", "WWW-Authenticate", "X-Request-Id", "RateLimit", "RateLimit-Policy"],
    maxAge: 600,
  });
  return (req, res, next) => {
    if (req.headers.origin === undefined) next();
    else handler(req, res, next);
  };
}
