/**
 * Who a contract change breaks: clients built against the last release (their requests are refused or
 * they meet responses they were not told about), the server (old clients keep sending what it no longer
 * reads), or nobody.
 */
export type Impact = "breaking for existing clients" | "breaking for the server" | "compatible";

/** One difference between two OpenAPI documents, in plain words. */
export interface Change {
  readonly impact: Impact;
  readonly text: string;
}

export const isBreaking = (change: Change) => change.impact !== "compatible";
