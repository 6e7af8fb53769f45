import { initContract } from "@ts-rest/core";
import { errorSchemas } from "./error-responses.js";
import type { RouteDocs } from "./route-docs.js";
import { NEW_PLANT_INT64_FIELDS, NewPlantSchema, PlantSchema } from "./schemas.js";

const c = initContract();

/** The Plant Store API: the one definition the server implements and the client calls. */
export const plantStoreContract = c.router(
  {
    plants: {
      create: {
        method: "POST",
        path: "/plants",
        summary: "Create a plant",
        description: "Creates a new plant in the store.",
        metadata: {
          docs: {
            requestBody: "The plant to create",
            requestExample: { id: 1, name: "Monstera", tag: "tropical" },
            responses: { 200: "The plant as stored (also for an identical replay of the same id)" },
          } satisfies RouteDocs,
          int64BodyFields: NEW_PLANT_INT64_FIELDS,
        },
        body: NewPlantSchema,
        // Every status the route can answer; each error status carries only its own codes (error-responses.ts).
        responses: {
          200: PlantSchema,
          400: errorSchemas[400],
          401: errorSchemas[401],
          403: errorSchemas[403],
          408: errorSchemas[408],
          409: errorSchemas[409],
          413: errorSchemas[413],
          429: errorSchemas[429],
          431: errorSchemas[431],
          500: errorSchemas[500],
          503: errorSchemas[503],
        },
      },
    },
  },
  { strictStatusCodes: true },
);

export type PlantStoreContract = typeof plantStoreContract;
