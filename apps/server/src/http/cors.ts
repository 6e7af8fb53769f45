import cors from "cors";
import type { RequestHandler } from "express";

/**
 * CORS for the browser origins in CORS_ORIGINS: answers their preflights (before auth, which a preflight
 * never carries) and lets them send Authorization and Content-Type. Other origins get no CORS headers.
 */
export function corsAllowlist(origins: readonly string[]): RequestHandler {
  const allowed = new Set(origins);
  return cors({
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin)),
    methods: ["POST"],
    allowedHeaders: ["Authorization", "Content-Type"],
    exposedHeaders: ["Retry-After", "WWW-Authenticate", "X-Request-Id"],
    maxAge: 600,
  });
}
