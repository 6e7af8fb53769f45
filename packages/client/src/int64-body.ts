/** `T` with every int64 (bigint) field also accepting a number, which the client turns into a bigint. */
export type Int64Lenient<T> = T extends object ? { [K in keyof T]: OrNumber<T[K]> } : T;
type OrNumber<V> = V extends bigint ? V | number : V;

interface ZodDefLike {
  typeName?: string;
  innerType?: ZodLike;
  schema?: ZodLike;
  shape?: () => Record<string, ZodLike>;
}
interface ZodLike {
  _def: ZodDefLike;
}

// Read through zod's definitions, not `instanceof`: the contract may have been built with another copy of zod.
function unwrap(schema: ZodLike): ZodLike {
  const def = schema._def;
  const inner = def.innerType ?? (def.typeName === "ZodEffects" ? def.schema : undefined);
  return inner ? unwrap(inner) : schema;
}

/** The names of a body schema's top-level int64 (bigint) fields. */
export function int64Fields(bodySchema: unknown): string[] {
  if (typeof bodySchema !== "object" || bodySchema === null || !("_def" in bodySchema)) return [];
  const object = unwrap(bodySchema as ZodLike)._def;
  if (object.typeName !== "ZodObject" || !object.shape) return [];
  return Object.entries(object.shape())
    .filter(([, field]) => unwrap(field)._def.typeName === "ZodBigInt")
    .map(([name]) => name);
}

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
