import { type AppRoute, type AppRouter, isAppRoute, isAppRouteMutation } from "@ts-rest/core";
import { type ZodTypeAny, z } from "zod";
import {
  createDocument,
  type oas31,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponsesObject,
} from "zod-openapi";
import { errorResponse, isErrorStatus, successResponse } from "./openapi-responses.js";
import { requestHeaders } from "./request-headers.js";
import type { RouteDocs } from "./route-docs.js";
import { plantStoreContract } from "./router.js";
import { ErrorSchema, NewPlantSchema, PlantSchema } from "./schemas.js";

/** Options for {@link buildOpenApiDocument}. */
export interface OpenApiDocumentOptions {
  /** The API's base URL (the spec's `{base_url}`), listed as the document's one server when given. */
  serverUrl?: string;
}

/**
 * The OpenAPI 3.1 document of the API, generated from the contract by zod-openapi (JSON Schema 2020-12
 * forms: `const`, `examples`, `type` arrays for null).
 */
export function buildOpenApiDocument(options: OpenApiDocumentOptions = {}): oas31.OpenAPIObject {
  return createDocument({
    openapi: "3.1.0",
    info: {
      title: "Plant Store",
      description: "A sample plant store interface, used to demonstrate features of the OpenAPI 3.1 specification.",
      version: "1.0.0",
      license: { name: "MIT", identifier: "MIT" },
    },
    ...(options.serverUrl !== undefined && { servers: [{ url: options.serverUrl }] }),
    paths: pathsOf(plantStoreContract),
    components: {
      // Error is listed because each error status's body refers to it (openapi-responses.ts), not its zod schema.
      schemas: { Plant: PlantSchema, NewPlant: NewPlantSchema, Error: ErrorSchema },
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
    },
  });
}

/** Every route of a ts-rest router as OpenAPI paths, with operation ids from their keys (`plants.create`). */
function pathsOf(router: AppRouter, keys: string[] = [], paths: ZodOpenApiPathsObject = {}) {
  for (const [key, entry] of Object.entries(router)) {
    if (isAppRoute(entry)) {
      const method = entry.method.toLowerCase() as Lowercase<AppRoute["method"]>;
      paths[entry.path] = { ...paths[entry.path], [method]: operationOf(entry, [...keys, key]) };
    } else {
      pathsOf(entry, [...keys, key], paths);
    }
  }
  return paths;
}

function operationOf(route: AppRoute, keys: string[]): ZodOpenApiOperationObject {
  // Only what the contract uses is rendered; a route with more must fail here, not publish a partial document.
  const headers = route.headers ?? {};
  if (route.pathParams || route.query || headers instanceof z.ZodType || Object.keys(headers).length > 0) {
    throw new Error(`${keys.join(".")}: path, query and header parameters are not rendered yet`);
  }
  const docs = (route.metadata as { docs?: RouteDocs } | undefined)?.docs;
  return {
    operationId: keys.join("."),
    tags: keys.slice(0, -1),
    summary: route.summary,
    description: route.description,
    security: [{ bearerAuth: [] }],
    parameters: Object.entries(requestHeaders).map(([name, description]) => ({
      in: "header" as const,
      name,
      required: false,
      description,
      schema: { type: "string" as const },
    })),
    ...(isAppRouteMutation(route) && {
      requestBody: {
        description: docs?.requestBody,
        required: true,
        content: {
          "application/json": {
            schema: zodSchema(route.body, keys, "body"),
            ...(docs?.requestExample !== undefined && { examples: { plant: { value: docs.requestExample } } }),
          },
        },
      },
    }),
    responses: Object.fromEntries(
      Object.entries(route.responses).map(([key, schema]) => {
        const status = Number(key);
        const body = zodSchema(schema, keys, key);
        if (isErrorStatus(status) && body instanceof z.ZodObject) return [key, errorResponse(status, body)];
        const description = docs?.responses[status];
        if (status < 400 && description) return [key, successResponse(description, body)];
        throw new Error(`${keys.join(".")} ${key}: no description (metadata.docs or the error-response table)`);
      }),
    ) as ZodOpenApiResponsesObject,
  };
}

function zodSchema(schema: unknown, keys: string[], part: string): ZodTypeAny {
  if (schema instanceof z.ZodType) return schema;
  throw new Error(`${keys.join(".")} ${part}: only zod schemas are rendered`);
}
