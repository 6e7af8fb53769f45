import { describe, expect, it } from "vitest";
import { NewPlantSchema } from "../src/schemas.js";
import { contentTypeRejection, declaresBody, describeValidationError, parseJsonBody } from "../src/wire.js";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("the API's wire rules for request bodies", () => {
  it("reads integer literals as bigint, digit for digit, and other numbers as numbers", () => {
    expect(parseJsonBody(bytes('{"id": 9007199254740993, "ratio": 1.5}'))).toEqual({ body: { id: 9007199254740993n, ratio: 1.5 } });
  });

  it("refuses repeated keys, text that is not JSON, bytes that are not UTF-8 and empty bodies with their codes", () => {
    expect(parseJsonBody(bytes('{"name": "a", "name": "b"}'))).toMatchObject({ rejection: { error: 40003 } });
    expect(parseJsonBody(bytes("{id: 1}"))).toMatchObject({ rejection: { error: 40003, message: /not valid JSON/ } });
    expect(parseJsonBody(new Uint8Array([0xff, 0xfe]))).toEqual({ rejection: { error: 40003, message: "request body is not valid UTF-8" } });
    expect(parseJsonBody(bytes("  "))).toMatchObject({ rejection: { error: 40001 } });
  });

  it("keeps __proto__ as a plain own key", () => {
    const parsed = parseJsonBody(bytes('{"__proto__": {"polluted": true}}')) as { body: object };
    expect(Object.getPrototypeOf(parsed.body)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("accepts application/json with or without charset=utf-8 and refuses anything else", () => {
    expect(contentTypeRejection("application/json")).toBeUndefined();
    expect(contentTypeRejection("application/json; charset=UTF-8")).toBeUndefined();
    expect(contentTypeRejection("application/json; charset=latin1")).toMatchObject({ error: 40002 });
    expect(contentTypeRejection("text/plain")).toMatchObject({ error: 40002 });
    expect(contentTypeRejection(undefined)).toEqual({ error: 40002, message: "Content-Type must be application/json" });
  });

  it("a body is announced by Content-Length above 0 or by Transfer-Encoding", () => {
    expect(declaresBody({ "content-length": "0" })).toBe(false);
    expect(declaresBody({})).toBe(false);
    expect(declaresBody({ "content-length": "2" })).toBe(true);
    expect(declaresBody({ "transfer-encoding": "chunked" })).toBe(true);
  });

  it("names each invalid field in API terms, not JavaScript types", () => {
    const result = NewPlantSchema.safeParse({ id: "1", name: 5n });
    expect(result.success).toBe(false);
    if (!result.success) expect(describeValidationError(result.error)).toBe("name: must be a string, got number; id: must be an integer, got string");
  });
});
