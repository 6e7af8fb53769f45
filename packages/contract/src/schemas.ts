import { z } from "zod";
// Adds zod's `.openapi()` (metadata only, 1.4 KB minified; the generator is in zod-openapi's main entry, imported by
// ./openapi.ts alone), so each schema states its OpenAPI title, format and pattern where it is defined.
import "zod-openapi/extend";
import type { Int64FieldOf } from "./int64-fields.js";

/** Smallest and largest int64: the range of a plant id. */
export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

// Text a store cannot keep exactly as sent is refused, so every store behaves the same and an identical
// retry never conflicts: PostgreSQL text cannot hold U+0000, and an unpaired UTF-16 surrogate ("\ud800" in
// JSON) is not Unicode text (SQLite reads it back as replacement characters; PostgreSQL refuses it).
// Checked with string patterns, not .refine(): in zod 3 a refinement costs ~8 us per parse (each builds a
// context object with an accessor of its own), the whole body with patterns ~0.7 us.
// biome-ignore lint/suspicious/noControlCharactersInRegex: excluding NUL is the point of this pattern.
const WITHOUT_NUL = /^[^\u0000]*$/;
const WITHOUT_UNPAIRED_SURROGATE = /^\P{Cs}*$/u;
// The OpenAPI document states both rules as one pattern of a plain string (the generator would otherwise
// write an allOf of two string schemas, one per pattern).
const TEXT_PATTERN = "^[^\\u0000\\p{Cs}]*$";
const text = (description: string) =>
  z
    .string()
    .regex(WITHOUT_NUL, "must not contain the NUL character (U+0000)")
    .regex(WITHOUT_UNPAIRED_SURROGATE, "must be well-formed Unicode text (no unpaired surrogate)")
    .openapi({ type: "string", pattern: TEXT_PATTERN, description });

/** A plant as the store returns it. */
export const PlantSchema = z
  .object({
    name: text("The name of the plant"),
    tag: text("Tag that specifies the type of the plant").optional(),
  })
  .openapi({ ref: "Plant", title: "Plant", examples: [{ name: "Monstera", tag: "tropical" }] });

/**
 * The body of POST /plants: a Plant plus the client-chosen id.
 * The id is an int64 on the wire, so it is a bigint here: a JS number cannot hold every int64.
 * Plant's fields are spread rather than `.extend()`ed so the document lists NewPlant's fields flat, as the spec
 * does (zod-openapi writes an extended schema as an allOf over its base).
 */
export const NewPlantSchema = z
  .object({
    ...PlantSchema.shape,
    id: z
      .bigint()
      .min(INT64_MIN, { message: "must be an integer from -2^63 to 2^63-1" })
      .max(INT64_MAX, { message: "must be an integer from -2^63 to 2^63-1" })
      .describe("Identification number of the plant"),
  })
  .openapi({ ref: "NewPlant", title: "NewPlant" });

/** NewPlant's int64 fields, stated once as data (the route's `metadata.int64BodyFields`); a test holds it to the schema. */
export const NEW_PLANT_INT64_FIELDS = ["id"] as const satisfies readonly Int64FieldOf<NewPlant>[];

/** The body of every failure response. */
export const ErrorSchema = z
  .object({
    error: z
      .number()
      .int()
      .min(INT32_MIN)
      .max(INT32_MAX)
      .openapi({ format: "int32", description: "Numeric error code" }),
    message: z.string().describe("Text describing the error"),
  })
  .openapi({ ref: "Error", title: "Error" });

/** A plant as the store returns it: `name` and an optional `tag`. */
export type Plant = z.infer<typeof PlantSchema>;
/** The body of POST /plants: a Plant plus its int64 `id` as a bigint. */
export type NewPlant = z.infer<typeof NewPlantSchema>;
/** The body of every failure: `{ error: <code from ErrorCode>, message }`. */
export type ApiError = z.infer<typeof ErrorSchema>;
