import { extendApi } from "@anatine/zod-openapi";
import { z } from "zod";

/** Smallest and largest int64: the range of a plant id. */
export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

// Text a store cannot keep exactly as sent is refused, so every store behaves the same and an identical
// retry never conflicts: PostgreSQL text cannot hold U+0000, and an unpaired UTF-16 surrogate ("\ud800" in
// JSON) is not Unicode text (SQLite reads it back as replacement characters; PostgreSQL refuses it).
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding NUL is the point of this pattern.
const NUL = /\u0000/;
const UNPAIRED_SURROGATE = /\p{Cs}/u;
const text = () =>
  z
    .string()
    .refine((value) => !NUL.test(value), "must not contain the NUL character (U+0000)")
    .refine((value) => !UNPAIRED_SURROGATE.test(value), "must be well-formed Unicode text (no unpaired surrogate)");

/** A plant as the store returns it. */
export const PlantSchema = extendApi(
  z.object({
    name: text().describe("The name of the plant"),
    tag: text().optional().describe("Tag that specifies the type of the plant"),
  }),
  { title: "Plant" },
);

/**
 * The body of POST /plants: a Plant plus the client-chosen id.
 * The id is an int64 on the wire, so it is a bigint here: a JS number cannot hold every int64.
 */
export const NewPlantSchema = extendApi(
  PlantSchema.extend({
    id: z
      .bigint()
      .min(INT64_MIN, { message: "must be an integer from -2^63 to 2^63-1" })
      .max(INT64_MAX, { message: "must be an integer from -2^63 to 2^63-1" })
      .describe("Identification number of the plant"),
  }),
  { title: "NewPlant" },
);

/** The body of every failure response. */
export const ErrorSchema = extendApi(
  z.object({
    error: extendApi(z.number().int().min(INT32_MIN).max(INT32_MAX).describe("Numeric error code"), {
      format: "int32",
    }),
    message: z.string().describe("Text describing the error"),
  }),
  { title: "Error" },
);

/** A plant as the store returns it: `name` and an optional `tag`. */
export type Plant = z.infer<typeof PlantSchema>;
/** The body of POST /plants: a Plant plus its int64 `id` as a bigint. */
export type NewPlant = z.infer<typeof NewPlantSchema>;
/** The body of every failure: `{ error: <code from ErrorCode>, message }`. */
export type ApiError = z.infer<typeof ErrorSchema>;
