import { type AnyZodObject, type ZodTypeAny, z } from "zod";
import type { ZodOpenApiResponseObject } from "zod-openapi";
import { ErrorCode } from "./error-codes.js";
import { type ErrorStatus, errorResponses, type ResponseHeaderName, responseHeaders } from "./error-responses.js";

/** Each documented header's value as the server writes it. */
const headerValues = {
  "X-Request-Id": z.string(),
  "WWW-Authenticate": z.string(),
  "Retry-After": z.number().int().min(0),
  RateLimit: z.string(),
  "RateLimit-Policy": z.string(),
} satisfies Record<ResponseHeaderName, ZodTypeAny>;

// Each header is written once, under components.headers, and referenced from every response that sends it.
const headerSchemas = {} as Record<ResponseHeaderName, ZodTypeAny>;
for (const name of Object.keys(headerValues) as ResponseHeaderName[]) {
  headerSchemas[name] = headerValues[name].openapi({ header: { ref: name, description: responseHeaders[name] } });
}

/** X-Request-Id, which every response carries, and the given headers. */
const headersOf = (names: readonly ResponseHeaderName[]) =>
  z.object(Object.fromEntries(["X-Request-Id" as const, ...names].map((name) => [name, headerSchemas[name]])));

/** A success response: its description, its body and X-Request-Id. */
export function successResponse(description: string, body: ZodTypeAny): ZodOpenApiResponseObject {
  return { description, headers: headersOf([]), content: { "application/json": { schema: body } } };
}

export const isErrorStatus = (status: number): status is ErrorStatus => status in errorResponses;

/**
 * An error status's response from the error-response table: its description, its headers, and its body as
 * an Error whose `error` is the enum of the codes the status may carry, named in `x-enum-varnames`.
 */
export function errorResponse(status: ErrorStatus, body: AnyZodObject): ZodOpenApiResponseObject {
  const { codes, description, headers } = errorResponses[status];
  // Written as JSON Schema: zod-openapi renders an extended object as an allOf only when it adds fields,
  // and a flat copy would lose that every error body is an Error.
  const error = {
    type: "integer",
    format: "int32",
    enum: codes.map((name) => ErrorCode[name]),
    "x-enum-varnames": [...codes],
    description: (body.shape.error as ZodTypeAny).description,
  } as const;
  return {
    description,
    headers: headersOf(headers),
    content: {
      "application/json": { schema: { allOf: [{ $ref: "#/components/schemas/Error" }], properties: { error } } },
    },
  };
}
