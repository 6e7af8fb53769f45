/** `T` with every int64 (bigint) field also accepting a number, which the client turns into a bigint. */
export type Int64Lenient<T> = T extends object ? { [K in keyof T]: OrNumber<T[K]> } : T;
type OrNumber<V> = V extends bigint ? V | number : V;

/**
 * The body with its int64 fields as bigint. A number that is not a safe integer is refused with a
 * RangeError rather than sent rounded (to another plant's id, say).
 */
export function toInt64Fields<T>(body: T, fields: readonly string[]): T {
  if (fields.length === 0 || typeof body !== "object" || body === null) return body;
  const converted: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const field of fields) {
    const value = converted[field];
    if (typeof value !== "number") continue;
    if (!Number.isSafeInteger(value)) {
      throw new RangeError(`${field} ${value} is not a safe integer: pass int64 values beyond 2^53 as bigint`);
    }
    converted[field] = BigInt(value);
  }
  return converted as T;
}
