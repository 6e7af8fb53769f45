import { generateOpenApi } from "@ts-rest/open-api";
import { plantStoreContract } from "./router.js";

const responseDescriptions: Record<string, string> = {
  "200": "The plant as stored (also for an identical replay of the same id)",
  "400": "An unexpected error: the request is not a valid NewPlant call",
  "401": "Missing or invalid bearer token",
  "403": "The token lacks the required scope",
  "409": "A plant with this id exists with different data",
  "413": "The request body is too large",
  "429": "Too many requests for this token's subject; retry after the Retry-After seconds",
  "500": "An unexpected failure on the server",
};

/** The OpenAPI 3.1 document of the API, generated from the contract. */
export function buildOpenApiDocument() {
  const document = generateOpenApi(
    plantStoreContract,
    {
      info: {
        title: "Plant Store",
        description:
          "A sample plant store interface, used to demonstrate features of the OpenAPI 3.1 specification.",
        version: "1.0.0",
        license: { name: "MIT", identifier: "MIT" },
      },
      components: {
        securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
      },
    },
    {
      setOperationId: "concatenated-path",
      operationMapper: (operation) => ({
        ...operation,
        security: [{ bearerAuth: [] }],
        requestBody: operation.requestBody && {
          ...operation.requestBody,
          description: "The plant to create",
          required: true,
        },
        responses: Object.fromEntries(
          Object.entries(operation.responses).map(([status, response]) => [
            status,
            { ...response, description: responseDescriptions[status] ?? status },
          ]),
        ),
      }),
    },
  );
  // ts-rest emits OpenAPI 3.0 shapes; the schemas it produces are also valid 3.1 (JSON Schema 2020-12).
  return { ...document, openapi: "3.1.0" };
}
