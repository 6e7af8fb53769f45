import type { Change, Impact } from "./change.js";
import { deepEqual, flattenSchema, type JsonObject, objectAt, stringsAt } from "./json-document.js";

/** Where a schema sits, which decides whether narrowing it or widening it is what breaks clients. */
export interface SchemaPlace {
  /** E.g. "POST /plants request body" or "POST /plants 409 response". */
  readonly where: string;
  /** What the schema's root is called in messages, e.g. "the body". */
  readonly root: string;
  /** Clients send requests (narrowing breaks them) and read responses (widening breaks them). */
  readonly direction: "request" | "response";
  /** Its enums are error codes: clients must already handle a new code, but lose one they branch on. */
  readonly errorCodes: boolean;
}

const UPPER_BOUNDS = ["maxLength", "maximum", "exclusiveMaximum", "maxItems", "maxProperties"];
const LOWER_BOUNDS = ["minLength", "minimum", "exclusiveMinimum", "minItems", "minProperties"];
const ANNOTATIONS = ["description", "title", "examples", "example", "default", "deprecated"];
/** Keywords this module compares; a change to any other one is reported as breaking, unclassified. */
const UNDERSTOOD = new Set([
  ...UPPER_BOUNDS,
  ...LOWER_BOUNDS,
  ...ANNOTATIONS,
  "x-enum-varnames",
  "type",
  "format",
  "pattern",
  "enum",
  "const",
  "properties",
  "required",
  "items",
  "additionalProperties",
]);

/** The differences between two versions of one schema, each classified for the place it sits in. */
export function diffSchemas(
  place: SchemaPlace,
  before: { document: JsonObject; schema: unknown },
  after: { document: JsonObject; schema: unknown },
): Change[] {
  const changes: Change[] = [];
  const report = (impact: Impact, text: string) => changes.push({ impact, text: `${place.where}: ${text}` });
  /** Narrowing a request, or widening a response, breaks clients; the opposite is compatible. */
  const bounded = (narrowed: boolean, text: string) =>
    report(narrowed === (place.direction === "request") ? "breaking for existing clients" : "compatible", text);
  const inPath = new Set<string>();

  const compare = (field: string, rawBefore: unknown, rawAfter: unknown) => {
    const refs = `${objectAt(rawBefore).$ref}|${objectAt(rawAfter).$ref}|${field}`;
    if (inPath.has(refs)) return; // a recursive schema: this pair is already being compared further up
    inPath.add(refs);
    const a = flattenSchema(before.document, rawBefore);
    const b = flattenSchema(after.document, rawAfter);
    const name = field === "" ? place.root : `\`${field}\``;
    if (!deepEqual(a, b)) {
      compareAnnotations(name, a, b);
      compareTypes(name, a, b);
      compareValues(name, a, b);
      compareBounds(name, a, b);
      compareProperties(field, name, a, b);
      if (!deepEqual(a.items, b.items)) compare(`${field}[]`, a.items, b.items);
      compareOthers(name, a, b);
    }
    inPath.delete(refs);
  };

  const compareAnnotations = (name: string, a: JsonObject, b: JsonObject) => {
    for (const key of ANNOTATIONS) {
      if (deepEqual(a[key], b[key])) continue;
      if (key === "deprecated") report("compatible", `${name} is ${b[key] ? "now" : "no longer"} deprecated`);
      else report("compatible", `${key} of ${name} changed`);
    }
  };

  const compareTypes = (name: string, a: JsonObject, b: JsonObject) => {
    const from = typesOf(a);
    const to = typesOf(b);
    if (deepEqual(from, to)) return;
    const text = `type of ${name} changed from ${from?.join(" or ") ?? "any"} to ${to?.join(" or ") ?? "any"}`;
    if (covers(to, from)) bounded(false, text);
    else if (covers(from, to)) bounded(true, text);
    else report("breaking for existing clients", text);
  };

  const compareValues = (name: string, a: JsonObject, b: JsonObject) => {
    const from = valuesOf(a);
    const to = valuesOf(b);
    if (deepEqual(from, to)) {
      if (!deepEqual(a["x-enum-varnames"], b["x-enum-varnames"]))
        report("compatible", `names of the values of ${name} changed`);
      return;
    }
    if (!from || !to) {
      const text = to
        ? `${name} is now limited to ${labels(b, to)}`
        : `${name} is no longer limited to a list of values`;
      // An error code list is open: a client must already cope with codes it does not know.
      if (place.errorCodes) report("compatible", text);
      else bounded(to !== undefined, text);
      return;
    }
    const removed = from.filter((value) => !to.some((other) => deepEqual(value, other)));
    const added = to.filter((value) => !from.some((other) => deepEqual(value, other)));
    if (place.errorCodes) {
      for (const code of removed) report("breaking for existing clients", `error code ${label(a, code)} removed`);
      for (const code of added) report("compatible", `error code ${label(b, code)} added`);
      return;
    }
    if (removed.length > 0) bounded(true, `${name} no longer allows ${labels(a, removed)}`);
    if (added.length > 0) bounded(false, `${name} now allows ${labels(b, added)}`);
  };

  const compareBounds = (name: string, a: JsonObject, b: JsonObject) => {
    for (const key of [...UPPER_BOUNDS, ...LOWER_BOUNDS]) {
      const from = a[key];
      const to = b[key];
      if (from === to) continue;
      const upper = UPPER_BOUNDS.includes(key);
      const narrowed = typeof to === "number" && (typeof from !== "number" || (upper ? to < from : to > from));
      bounded(narrowed, `${key} of ${name} changed from ${from ?? "none"} to ${to ?? "none"}`);
    }
    for (const key of ["pattern", "format"]) {
      if (a[key] === b[key]) continue;
      const text = `${key} of ${name} changed from ${a[key] ?? "none"} to ${b[key] ?? "none"}`;
      // Two different patterns or formats: neither provably contains the other.
      if (a[key] !== undefined && b[key] !== undefined) report("breaking for existing clients", text);
      else bounded(b[key] !== undefined, text);
    }
  };

  const compareProperties = (field: string, name: string, a: JsonObject, b: JsonObject) => {
    const from = objectAt(a.properties);
    const to = objectAt(b.properties);
    const requiredBefore = stringsAt(a.required);
    const requiredAfter = stringsAt(b.required);
    const path = (property: string) => (field === "" ? property : `${field}.${property}`);
    for (const property of Object.keys(from)) {
      if (property in to) continue;
      if (place.direction === "request") {
        report(
          "breaking for the server",
          `field \`${path(property)}\` removed, which clients of the last release still send`,
        );
      } else {
        report("breaking for existing clients", `field \`${path(property)}\` removed`);
      }
    }
    for (const property of Object.keys(to)) {
      if (property in from) continue;
      const required = requiredAfter.includes(property);
      if (place.direction === "request" && required) {
        report("breaking for existing clients", `field \`${path(property)}\` added as required`);
      } else {
        report("compatible", `${required ? "" : "optional "}field \`${path(property)}\` added`);
      }
    }
    for (const property of Object.keys(from)) {
      if (!(property in to)) continue;
      const wasRequired = requiredBefore.includes(property);
      const isRequired = requiredAfter.includes(property);
      if (wasRequired !== isRequired) {
        const text = `field \`${path(property)}\` is ${isRequired ? "now required" : "now optional"}`;
        bounded(isRequired, text); // optional in a response is wider: clients may now miss it
      }
      compare(path(property), from[property], to[property]);
    }
    if (!deepEqual(a.additionalProperties, b.additionalProperties)) {
      const closes = b.additionalProperties === false;
      if (closes || a.additionalProperties === false) {
        bounded(closes, `${name} ${closes ? "no longer allows" : "now allows"} fields it does not list`);
      } else {
        report("breaking for existing clients", `additionalProperties of ${name} changed; treated as breaking`);
      }
    }
  };

  const compareOthers = (name: string, a: JsonObject, b: JsonObject) => {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter(
      (key) => !UNDERSTOOD.has(key) && !deepEqual(a[key], b[key]),
    );
    if (keys.length > 0) {
      report(
        "breaking for existing clients",
        `${name} changed in a way this guard does not classify (${keys.join(", ")}); treated as breaking`,
      );
    }
  };

  compare("", before.schema, after.schema);
  return changes;
}

/** The JSON types a schema admits, or undefined for any. */
function typesOf(schema: JsonObject): string[] | undefined {
  if (typeof schema.type === "string") return [schema.type];
  return Array.isArray(schema.type) ? stringsAt(schema.type).sort() : undefined;
}

/** Whether every value of type list `inner` is also one of `outer` (an integer is a number). */
function covers(outer: string[] | undefined, inner: string[] | undefined): boolean {
  if (!outer) return true;
  if (!inner) return false;
  return inner.every((type) => outer.includes(type) || (type === "integer" && outer.includes("number")));
}

function valuesOf(schema: JsonObject): unknown[] | undefined {
  if ("const" in schema) return [schema.const];
  return Array.isArray(schema.enum) ? schema.enum : undefined;
}

/** A value as messages show it, with its name from `x-enum-varnames` when the schema gives one. */
function label(schema: JsonObject, value: unknown): string {
  const values = valuesOf(schema) ?? [];
  const names = stringsAt(schema["x-enum-varnames"]);
  const name = names[values.findIndex((other) => deepEqual(other, value))];
  return name ? `${JSON.stringify(value)} (${name})` : JSON.stringify(value);
}

const labels = (schema: JsonObject, values: unknown[]) => values.map((value) => label(schema, value)).join(", ");
