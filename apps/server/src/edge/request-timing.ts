import { performance } from "node:perf_hooks";
import type { Request } from "express";

const startedAt = Symbol("startedAt");

type TimedRequest = Request & { [startedAt]?: number };

/** Notes when the server began on this request; the first call counts, so every timer shares one start. */
export function markRequestStart(req: Request): void {
  (req as TimedRequest)[startedAt] ??= performance.now();
}

/** Milliseconds since markRequestStart(req). */
export function millisecondsSinceStart(req: Request): number {
  return performance.now() - ((req as TimedRequest)[startedAt] ?? performance.now());
}
