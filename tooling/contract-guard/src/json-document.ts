/** A JSON object of an OpenAPI document, read without trusting its shape. */
export type JsonObject = { readonly [key: string]: unknown };

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The object at `value`, or an empty one when it is absent or not an object. */
export const objectAt = (value: unknown): JsonObject => (isObject(value) ? value : {});

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => key in b && deepEqual(a[key], b[key]));
}

/**
 * Follows local `$ref`s (`#/components/...`) until it reaches an object that is not a reference; keywords
 * beside a `$ref` (OpenAPI 3.1 allows a description there) apply over the target's.
 */
export function dereference(document: JsonObject, value: unknown): JsonObject {
  let node = objectAt(value);
  for (let hops = 0; typeof node.$ref === "string"; hops++) {
    const { $ref: ref, ...besides } = node;
    if (!ref.startsWith("#/") || hops > 64) throw new Error(`cannot follow the reference ${ref}`);
    const target = ref
      .slice(2)
      .split("/")
      .map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"))
      .reduce<JsonObject>((parent, token) => objectAt(parent[token]), document);
    node = { ...target, ...besides };
  }
  return node;
}

/**
 * A schema with its references followed and its `allOf` merged into one schema (properties and
 * `required` united, later keywords winning), so an extended object compares field by field.
 */
export function flattenSchema(document: JsonObject, value: unknown): JsonObject {
  const { allOf, ...own } = dereference(document, value);
  if (!Array.isArray(allOf)) return own;
  const merge = (into: JsonObject, next: JsonObject): JsonObject => mergeSchemas(document, into, next);
  return [...allOf.map((part) => flattenSchema(document, part)), own].reduce(merge, {});
}

function mergeSchemas(document: JsonObject, into: JsonObject, next: JsonObject): JsonObject {
  const properties: Record<string, unknown> = { ...objectAt(into.properties) };
  for (const [name, schema] of Object.entries(objectAt(next.properties))) {
    properties[name] =
      name in properties
        ? mergeSchemas(document, flattenSchema(document, properties[name]), flattenSchema(document, schema))
        : schema;
  }
  const required = [...new Set([...stringsAt(into.required), ...stringsAt(next.required)])];
  return {
    ...into,
    ...next,
    ...(Object.keys(properties).length > 0 && { properties }),
    ...(required.length > 0 && { required }),
  };
}

export const stringsAt = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
