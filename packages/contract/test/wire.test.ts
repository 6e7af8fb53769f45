import { describe, expect, it } from "vitest";
import { ErrorCode } from "../src/error-codes.js";
import { NewPlantSchema } from "../src/schemas.js";
import {
  BEARER_SCHEME,
  BEARER_TOKEN,
  contentTypeRejection,
  declaresBody,
  describeValidationError,
  insufficientScopeChallenge,
  parseJsonBody,
  REQUEST_ID,
  unauthorizedChallenge,
} from "../src/wire.js";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("the API's wire rules for request bodies", () => {
  it("reads integer literals as bigint, digit for digit, and other numbers as numbers", () => {
    expect(parseJsonBody(bytes('{"id": 9007199254740993, "ratio": 1.5}'))).toEqual({
      body: { id: 9007199254740993n, ratio: 1.5 },
    });
  });

  it("refuses repeated keys, text that is not JSON, bytes that are not UTF-8 and empty bodies with their codes", () => {
    expect(parseJsonBody(bytes('{"name": "a", "name": "b"}'))).toMatchObject({ rejection: { error: 40003 } });
    expect(parseJsonBody(bytes("{id: 1}"))).toMatchObject({ rejection: { error: 40003, message: /not valid JSON/ } });
    expect(parseJsonBody(new Uint8Array([0xff, 0xfe]))).toEqual({
      rejection: { error: 40003, message: "request body is not valid UTF-8" },
    });
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
    if (!result.success)
      expect(describeValidationError(result.error)).toBe(
        "name: must be a string, got number; id: must be an integer, got string",
      );
  });
});

describe("the API's wire rules for headers", () => {
  it("reads a bearer token only from the Bearer scheme and RFC 6750's b64token, in any case, with spaces around it", () => {
    expect(BEARER_TOKEN.exec("Bearer abc.DEF-_~+/==")?.[1]).toBe("abc.DEF-_~+/==");
    expect(BEARER_TOKEN.exec("bearer   abc  ")?.[1]).toBe("abc");
    for (const header of ["Bearer ", "Bearer a b", "Bearer a=b", "Bearer\tabc"])
      expect(BEARER_TOKEN.test(header)).toBe(false);
    expect(["Bearer", "bearer x", "Bearer\tabc"].every((header) => BEARER_SCHEME.test(header))).toBe(true);
    expect(["Basic abc", "Bearerx", ""].some((header) => BEARER_SCHEME.test(header))).toBe(false);
  });

  it("challenges a missing token without an error attribute and a refused one with invalid_token and its reason", () => {
    expect(unauthorizedChallenge(ErrorCode.MissingToken, "no token")).toBe('Bearer realm="plant-store"');
    expect(unauthorizedChallenge(ErrorCode.InvalidToken, 'the "kid" is unknown')).toBe(
      `Bearer realm="plant-store", error="invalid_token", error_description="the 'kid' is unknown"`,
    );
    expect(insufficientScopeChallenge("plants:write")).toBe(
      'Bearer realm="plant-store", error="insufficient_scope", scope="plants:write"',
    );
  });

  it("keeps a caller's X-Request-Id of up to 128 word characters, dots, colons and dashes, and nothing else", () => {
    for (const id of ["trace-123.abc:1", "a".repeat(128), "550e8400-e29b-41d4-a716-446655440000"])
      expect(REQUEST_ID.test(id)).toBe(true);
    for (const id of ["", "a".repeat(129), "has spaces", "semi;colon", "new\nline"])
      expect(REQUEST_ID.test(id)).toBe(false);
  });
});
