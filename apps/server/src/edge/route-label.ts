import type { Request } from "express";

/**
 * The route a request matched as written in the router ("/plants"), never the raw URL: logs and metric
 * labels stay low-cardinality however many distinct paths clients try.
 */
export function routeLabel(req: Request): string {
  const path: unknown = req.route?.path;
  return typeof path === "string" ? path : "unmatched";
}
