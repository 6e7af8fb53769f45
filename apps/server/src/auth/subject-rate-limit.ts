import type { Request, RequestHandler } from "express";
import { ipKeyGenerator, rateLimit } from "express-rate-limit";
import type { JwtPayload } from "jsonwebtoken";
import type { Logger } from "../logger.js";
import { RateLimitExceededError } from "./auth-errors.js";

const WINDOW_MS = 60_000;

/** Whose budget a request spends: the token's subject, or its client address when the token has no `sub`. */
function subjectKey(req: Request, claims: JwtPayload | undefined): string {
  if (typeof claims?.sub === "string") return `sub:${claims.sub}`;
  return `ip:${ipKeyGenerator(req.ip ?? "")}`;
}

/**
 * After bearerAuth: at most `limitPerMinute` requests per token subject in a fixed one-minute window,
 * then 429 with Retry-After. Counts live in this process's memory (express-rate-limit's MemoryStore).
 */
export function subjectRateLimit(limitPerMinute: number, logger?: Logger): RequestHandler {
  return rateLimit({
    // express-rate-limit's own warnings (e.g. about proxies) go to the JSON log, not to the console.
    ...(logger !== undefined && { logger }),
    windowMs: WINDOW_MS,
    limit: limitPerMinute,
    keyGenerator: (req, res) => subjectKey(req, res.locals.claims as JwtPayload | undefined),
    // The IETF fields (draft-ietf-httpapi-ratelimit-headers-08) on every limited response, 200 and 429 alike:
    // `RateLimit-Policy: "3-in-1min"; q=3; w=60; pk=:…:` and `RateLimit: "3-in-1min"; r=2; t=42`, the partition
    // key a hash of the subject (never the subject itself); Retry-After on a 429.
    standardHeaders: "draft-8",
    legacyHeaders: false,
    handler: (req, _res, next) => {
      const resetTime = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
      const retryAfterSeconds = Math.max(
        1,
        Math.ceil(((resetTime?.getTime() ?? Date.now() + WINDOW_MS) - Date.now()) / 1000),
      );
      next(new RateLimitExceededError(limitPerMinute, retryAfterSeconds));
    },
  });
}
