import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Change } from "../src/change.js";
import { diffOpenApi } from "../src/openapi-diff.js";

// A released document in the contract's own shapes (allOf over Error with per-status error codes,
// shared header components), edited below one kind of change at a time.
// biome-ignore lint/suspicious/noExplicitAny: fixtures edit the document freely.
type Document = any;
const released: Document = JSON.parse(
  readFileSync(new URL("./fixtures/released-openapi.json", import.meta.url), "utf8"),
);

function changesAfter(edit: (document: Document) => void): Change[] {
  const current = structuredClone(released);
  edit(current);
  return diffOpenApi(released, current);
}

const schemas = (document: Document) => document.components.schemas;
const createPlant = (document: Document) => document.paths["/plants"].post;

describe("the contract's changes, each classified by whom it breaks", () => {
  it("finds no change between a document and itself", () => {
    expect(changesAfter(() => {})).toEqual([]);
  });

  it("a removed route breaks existing clients", () => {
    expect(changesAfter((d) => delete d.paths["/plants"])).toEqual([
      { impact: "breaking for existing clients", text: "POST /plants removed" },
    ]);
  });

  it("a new route is compatible", () => {
    expect(
      changesAfter((d) => {
        d.paths["/plants/{id}"] = {
          get: { operationId: "plants.get", responses: { 200: { description: "The plant" } } },
        };
      }),
    ).toEqual([{ impact: "compatible", text: "GET /plants/{id} added" }]);
  });

  it("a status no longer answered breaks existing clients; a new one is compatible", () => {
    expect(changesAfter((d) => delete createPlant(d).responses["409"])).toEqual([
      { impact: "breaking for existing clients", text: "POST /plants: no longer answers 409" },
    ]);
    expect(changesAfter((d) => (createPlant(d).responses["404"] = { description: "No such route" }))).toEqual([
      { impact: "compatible", text: "POST /plants: may now answer 404" },
    ]);
  });

  it("a response field removed breaks existing clients", () => {
    expect(changesAfter((d) => delete schemas(d).Plant.properties.tag)).toEqual([
      { impact: "breaking for existing clients", text: "POST /plants 200 response: field `tag` removed" },
    ]);
  });

  it("a response field made optional breaks existing clients", () => {
    expect(changesAfter((d) => (schemas(d).Plant.required = ["name"]))).toEqual([
      { impact: "breaking for existing clients", text: "POST /plants 200 response: field `light` is now optional" },
    ]);
  });

  it("a response field widened with new values, or with null, breaks existing clients", () => {
    expect(changesAfter((d) => schemas(d).Plant.properties.light.enum.push("partial"))).toEqual([
      { impact: "breaking for existing clients", text: 'POST /plants 200 response: `light` now allows "partial"' },
    ]);
    expect(changesAfter((d) => (schemas(d).Plant.properties.tag.type = ["string", "null"]))).toEqual([
      {
        impact: "breaking for existing clients",
        text: "POST /plants 200 response: type of `tag` changed from string to null or string",
      },
    ]);
  });

  it("a response narrowed to fewer values is compatible", () => {
    expect(changesAfter((d) => (schemas(d).Plant.properties.light.enum = ["sun"]))).toEqual([
      { impact: "compatible", text: 'POST /plants 200 response: `light` no longer allows "shade"' },
    ]);
  });

  it("a request field added as required breaks existing clients; an optional one is compatible", () => {
    expect(
      changesAfter((d) => {
        schemas(d).NewPlant.properties.price = { type: "integer" };
        schemas(d).NewPlant.required.push("price");
      }),
    ).toEqual([
      { impact: "breaking for existing clients", text: "POST /plants request body: field `price` added as required" },
    ]);
    expect(changesAfter((d) => (schemas(d).NewPlant.properties.price = { type: "integer" }))).toEqual([
      { impact: "compatible", text: "POST /plants request body: optional field `price` added" },
    ]);
  });

  it("a request field removed breaks the server: clients of the last release still send it", () => {
    expect(changesAfter((d) => delete schemas(d).NewPlant.properties.tag)).toEqual([
      {
        impact: "breaking for the server",
        text: "POST /plants request body: field `tag` removed, which clients of the last release still send",
      },
    ]);
  });

  it("a request field narrowed breaks existing clients; widened, it is compatible", () => {
    expect(changesAfter((d) => (schemas(d).NewPlant.properties.name.maxLength = 100))).toEqual([
      {
        impact: "breaking for existing clients",
        text: "POST /plants request body: maxLength of `name` changed from 200 to 100",
      },
    ]);
    expect(changesAfter((d) => (schemas(d).NewPlant.properties.name.maxLength = 400))).toEqual([
      { impact: "compatible", text: "POST /plants request body: maxLength of `name` changed from 200 to 400" },
    ]);
    expect(changesAfter((d) => (schemas(d).NewPlant.properties.tag.pattern = "^[a-z]+$"))).toEqual([
      {
        impact: "breaking for existing clients",
        text: "POST /plants request body: pattern of `tag` changed from none to ^[a-z]+$",
      },
    ]);
  });

  it("a request enum value removed breaks existing clients; one added is compatible", () => {
    expect(changesAfter((d) => (schemas(d).NewPlant.properties.light.enum = ["sun"]))).toEqual([
      { impact: "breaking for existing clients", text: 'POST /plants request body: `light` no longer allows "shade"' },
    ]);
    expect(changesAfter((d) => schemas(d).NewPlant.properties.light.enum.push("partial"))).toEqual([
      { impact: "compatible", text: 'POST /plants request body: `light` now allows "partial"' },
    ]);
  });

  it("a request field whose type changed breaks existing clients", () => {
    expect(changesAfter((d) => (schemas(d).NewPlant.properties.id = { type: "string", format: "int64" }))).toEqual([
      {
        impact: "breaking for existing clients",
        text: "POST /plants request body: type of `id` changed from integer to string",
      },
    ]);
  });

  it("a required request field made optional is compatible", () => {
    expect(changesAfter((d) => (schemas(d).NewPlant.required = ["id"]))).toEqual([
      { impact: "compatible", text: "POST /plants request body: field `name` is now optional" },
    ]);
  });

  it("an error code removed from a status breaks existing clients; a new code under it is compatible", () => {
    const codes = (d: Document) => createPlant(d).responses["401"].content["application/json"].schema.properties.error;
    expect(
      changesAfter((d) => {
        codes(d).enum = [40101];
        codes(d)["x-enum-varnames"] = ["MissingToken"];
      }),
    ).toEqual([
      {
        impact: "breaking for existing clients",
        text: "POST /plants 401 response: error code 40102 (InvalidToken) removed",
      },
    ]);
    expect(
      changesAfter((d) => {
        codes(d).enum.push(40103);
        codes(d)["x-enum-varnames"].push("TokenRevoked");
      }),
    ).toEqual([{ impact: "compatible", text: "POST /plants 401 response: error code 40103 (TokenRevoked) added" }]);
  });

  it("a change to a shared schema shows in every response that uses it", () => {
    expect(changesAfter((d) => delete schemas(d).Error.properties.message)).toEqual([
      { impact: "breaking for existing clients", text: "POST /plants 401 response: field `message` removed" },
      { impact: "breaking for existing clients", text: "POST /plants 409 response: field `message` removed" },
    ]);
  });

  it("a response header removed breaks existing clients; a new one is compatible", () => {
    expect(changesAfter((d) => delete createPlant(d).responses["401"].headers["WWW-Authenticate"])).toEqual([
      { impact: "breaking for existing clients", text: "POST /plants 401 response: header WWW-Authenticate removed" },
    ]);
    expect(
      changesAfter((d) => {
        createPlant(d).responses["409"].headers["Retry-After"] = { schema: { type: "integer" } };
      }),
    ).toEqual([{ impact: "compatible", text: "POST /plants 409 response: header Retry-After added" }]);
  });

  it("descriptions and summaries are compatible", () => {
    expect(
      changesAfter((d) => {
        schemas(d).Plant.properties.name.description = "What the plant is called";
        createPlant(d).summary = "Add a plant";
        createPlant(d).responses["409"].description = "A plant with this id exists with a different name or tag";
      }),
    ).toEqual([
      { impact: "compatible", text: "POST /plants: summary changed" },
      { impact: "compatible", text: "POST /plants 200 response: description of `name` changed" },
      { impact: "compatible", text: "POST /plants 409 response: description changed" },
    ]);
  });

  it("a request body made optional is compatible; removed, it breaks the server", () => {
    expect(changesAfter((d) => (createPlant(d).requestBody.required = false))).toEqual([
      { impact: "compatible", text: "POST /plants: request body is now optional" },
    ]);
    expect(changesAfter((d) => delete createPlant(d).requestBody)).toEqual([
      {
        impact: "breaking for the server",
        text: "POST /plants: request body removed, which clients of the last release still send",
      },
    ]);
  });

  it("a change to authentication breaks existing clients", () => {
    expect(changesAfter((d) => (createPlant(d).security = [{ apiKey: [] }]))).toEqual([
      { impact: "breaking for existing clients", text: "POST /plants: security requirements changed" },
    ]);
  });

  it("a change it cannot classify counts as breaking, named", () => {
    expect(
      changesAfter((d) => {
        const { description } = schemas(d).Plant.properties.tag;
        schemas(d).Plant.properties.tag = { description, anyOf: [{ type: "string" }, { type: "integer" }] };
      }),
    ).toEqual([
      {
        impact: "breaking for existing clients",
        text: "POST /plants 200 response: type of `tag` changed from string to any",
      },
      {
        impact: "breaking for existing clients",
        text: "POST /plants 200 response: `tag` changed in a way this guard does not classify (anyOf); treated as breaking",
      },
    ]);
  });
});
