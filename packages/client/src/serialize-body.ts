import { stringify } from "lossless-json";

/**
 * Marks a request body so ts-rest's own `JSON.stringify` (which cannot serialise bigint) succeeds;
 * the fetcher then serialises the original body with lossless-json, writing bigint ids digit for digit.
 */
export function withBigIntSafeJson<T extends object>(body: T): T {
  return Object.defineProperty({ ...body }, "toJSON", { value: () => null, enumerable: false });
}

/** The exact JSON text of a body marked by withBigIntSafeJson. */
export function serializeBody(rawBody: unknown): string {
  // Spreading drops the non-enumerable toJSON, so lossless-json sees the plain fields.
  return stringify({ ...(rawBody as object) }) ?? "null";
}
