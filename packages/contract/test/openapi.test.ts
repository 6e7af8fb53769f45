import { readFileSync } from "node:fs";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { ErrorCode, type ErrorStatus, errorResponses, plantStoreContract, responseHeaders } from "../src/index.js";
import { buildOpenApiDocument } from "../src/openapi.js";

const document = buildOpenApiDocument();
/** Every key used anywhere in the document, for checks that no OpenAPI 3.0-only form slipped in. */
const keysIn = (value: unknown): string[] =>
  value && typeof value === "object" ? Object.entries(value).flatMap(([key, child]) => [key, ...keysIn(child)]) : [];
const createPlant = document.paths?.["/plants"]?.post;

describe("the OpenAPI document generated from the contract", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(JSON.stringify(document)));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("uses JSON Schema 2020-12 forms, none of OpenAPI 3.0's own", () => {
    const keys = new Set(keysIn(document));
    for (const key of ["nullable", "example", "x-nullable"]) expect(keys).not.toContain(key);
  });

  it("lists the server's base URL when one is given", () => {
    expect(document.servers).toBeUndefined();
    expect(buildOpenApiDocument({ serverUrl: "https://plants.example.com" }).servers).toEqual([
      { url: "https://plants.example.com" },
    ]);
  });

  it("is committed as openapi.json, so an API change shows in review (pnpm generate:openapi rewrites it)", () => {
    const committed = readFileSync(new URL("../openapi.json", import.meta.url), "utf8");
    expect(
      committed,
      "openapi.json differs from the contract: run pnpm --filter @plant-store/contract generate:openapi",
    ).toBe(`${JSON.stringify(document, null, 2)}\n`);
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
    expect(createPlant?.responses?.["200"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/Plant",
    });
    // Each error body is an Error whose `error` is narrowed to the status's codes (see below).
    for (const status of ["400", "401", "403", "409", "413", "429", "500", "503"]) {
      expect(createPlant?.responses?.[status].content["application/json"].schema.allOf).toEqual([
        { $ref: "#/components/schemas/Error" },
      ]);
    }
  });
});

describe("the responses, rendered from the error-response table", () => {
  const responses = createPlant?.responses ?? {};
  const declared = Object.keys(plantStoreContract.plants.create.responses);

  it("declares every status the route declares, each with a real description", () => {
    expect(Object.keys(responses)).toEqual(declared);
    for (const [status, response] of Object.entries(responses)) {
      expect(response.description, status).not.toMatch(/^\d+$/);
      if (status !== "200")
        expect(response.description).toBe(errorResponses[Number(status) as ErrorStatus].description);
    }
  });

  it("lists each error status's codes as an enum, named in x-enum-varnames", () => {
    expect(responses["409"].content["application/json"].schema.properties.error).toMatchObject({
      type: "integer",
      format: "int32",
      enum: [ErrorCode.PlantIdConflict],
      "x-enum-varnames": ["PlantIdConflict"],
    });
    for (const status of declared.filter((status) => status !== "200")) {
      const { codes } = errorResponses[Number(status) as ErrorStatus];
      const error = responses[status].content["application/json"].schema.properties.error;
      expect(error.enum, status).toEqual(codes.map((name) => ErrorCode[name]));
      expect(error["x-enum-varnames"], status).toEqual(codes);
    }
  });

  it("sends X-Request-Id on every response, WWW-Authenticate on 401/403, Retry-After on 429/503, RateLimit on 429", () => {
    const headers = (status: string) => Object.keys(responses[status].headers ?? {});
    for (const status of declared) expect(headers(status), status).toContain("X-Request-Id");
    expect(headers("401")).toContain("WWW-Authenticate");
    expect(headers("403")).toContain("WWW-Authenticate");
    expect(headers("429")).toEqual(["X-Request-Id", "Retry-After", "RateLimit", "RateLimit-Policy"]);
    expect(headers("503")).toEqual(["X-Request-Id", "Retry-After"]);
    expect(responses["429"].headers?.["Retry-After"]).toEqual({ $ref: "#/components/headers/Retry-After" });
    expect(document.components?.headers?.["Retry-After"]).toEqual({
      description: responseHeaders["Retry-After"],
      required: true,
      schema: { type: "integer", minimum: 0 },
    });
  });
});
