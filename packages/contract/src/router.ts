import { initContract } from "@ts-rest/core";
import { ErrorSchema, NewPlantSchema, PlantSchema } from "./schemas.js";

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
        body: NewPlantSchema,
        responses: {
          200: PlantSchema,
          400: ErrorSchema,
          401: ErrorSchema,
          403: ErrorSchema,
          408: ErrorSchema,
          409: ErrorSchema,
          413: ErrorSchema,
          429: ErrorSchema,
          431: ErrorSchema,
          500: ErrorSchema,
          503: ErrorSchema,
        },
      },
    },
  },
  { strictStatusCodes: true },
);

export type PlantStoreContract = typeof plantStoreContract;
