import type { AppRoute } from "@ts-rest/core";

/** The keys of `T` whose values are int64 (bigint). */
export type Int64FieldOf<T> = { [K in keyof T]-?: NonNullable<T[K]> extends bigint ? K : never }[keyof T];

/** What a route states in its ts-rest `metadata` about its body: the top-level fields that are int64 on the wire. */
export interface Int64BodyMetadata {
  /** The names of the body's int64 fields, e.g. `["id"]`. */
  readonly int64BodyFields: readonly string[];
}

/**
 * The int64 fields of a route's body, as the route states them in `metadata.int64BodyFields` (none when it
 * states none): read as data, so no caller walks the schema library's internals to find them.
 */
export function int64BodyFields(route: AppRoute): readonly string[] {
  const fields = (route.metadata as Partial<Int64BodyMetadata> | undefined)?.int64BodyFields;
  return Array.isArray(fields) ? fields : [];
}
