import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../src/openapi.js";

const document = buildOpenApiDocument();
const createPlant = document.paths["/plants"]?.post;

describe("the OpenAPI document generated from the contract", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("carries the spec's title, version 1.0.0 and MIT license", () => {
    expect(document.info).toMatchObject({ version: "1.0.0", license: { name: "MIT", identifier: "MIT" } });
    expect(document.info.title).toBe("Plant Store");
  });

  it("declares Plant with required name and optional tag", () => {
    expect(document.components?.schemas?.Plant).toMatchObject({
      type: "object",
      required: ["name"],
      properties: {
        name: { type: "string", description: "The name of the plant" },
        tag: { type: "string", description: "Tag that specifies the type of the plant" },
      },
    });
  });

  it("declares NewPlant as Plant plus a required int64 id", () => {
    const newPlant = document.components?.schemas?.NewPlant as { required: string[]; properties: object };
    expect([...newPlant.required].sort()).toEqual(["id", "name"]);
    expect(newPlant.properties).toMatchObject({
      id: { type: "integer", format: "int64", description: "Identification number of the plant" },
      name: { type: "string" },
      tag: { type: "string" },
    });
  });

  it("declares Error with a required int32 error and a required message", () => {
    const error = document.components?.schemas?.Error as { required: string[]; properties: object };
    expect([...error.required].sort()).toEqual(["error", "message"]);
    expect(error.properties).toMatchObject({
      error: { type: "integer", format: "int32" },
      message: { type: "string" },
    });
  });

  it("declares POST /plants with a required NewPlant body, bearer security and its responses", () => {
    expect(document.components?.securitySchemes?.bearerAuth).toEqual({
      type: "http",
      scheme: "bearer",
      bearerFormat: "JWT",
    });
    expect(createPlant?.security).toEqual([{ bearerAuth: [] }]);
    expect(createPlant?.requestBody).toMatchObject({
      required: true,
      content: { "application/json": { schema: { $ref: "#/components/schemas/NewPlant" } } },
    });
    expect(createPlant?.responses["200"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/Plant",
    });
    for (const status of ["400", "401", "403", "409", "413", "429", "500", "503"]) {
      expect(createPlant?.responses[status].content["application/json"].schema).toEqual({
        $ref: "#/components/schemas/Error",
      });
    }
  });
});
