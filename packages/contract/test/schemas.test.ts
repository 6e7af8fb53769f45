import { describe, expect, it } from "vitest";
import { ErrorCode, errorCodeName, INT64_MAX, INT64_MIN, NewPlantSchema } from "../src/index.js";

describe("NewPlantSchema", () => {
  it("accepts name and id, with or without a tag", () => {
    expect(NewPlantSchema.parse({ id: 1n, name: "Fern" })).toEqual({ id: 1n, name: "Fern" });
    expect(NewPlantSchema.parse({ id: 1n, name: "Fern", tag: "green" }).tag).toBe("green");
  });

  it("accepts both ends of int64 and rejects one past them", () => {
    expect(NewPlantSchema.safeParse({ id: INT64_MIN, name: "a" }).success).toBe(true);
    expect(NewPlantSchema.safeParse({ id: INT64_MAX, name: "a" }).success).toBe(true);
    expect(NewPlantSchema.safeParse({ id: INT64_MIN - 1n, name: "a" }).success).toBe(false);
    expect(NewPlantSchema.safeParse({ id: INT64_MAX + 1n, name: "a" }).success).toBe(false);
  });

  it("coerces nothing: a string id, a numeric name and a null tag are rejected", () => {
    expect(NewPlantSchema.safeParse({ id: "1", name: "a" }).success).toBe(false);
    expect(NewPlantSchema.safeParse({ id: 1n, name: 5 }).success).toBe(false);
    expect(NewPlantSchema.safeParse({ id: 1n, name: "a", tag: null }).success).toBe(false);
  });

  it("rejects U+0000 in a name or a tag, which PostgreSQL text cannot store, and keeps other characters", () => {
    expect(NewPlantSchema.safeParse({ id: 1n, name: "a\u0000b" }).success).toBe(false);
    expect(NewPlantSchema.safeParse({ id: 1n, name: "a", tag: "\u0000" }).success).toBe(false);
    expect(NewPlantSchema.safeParse({ id: 1n, name: "\u0001 tab\t 🌵", tag: "" }).success).toBe(true);
  });

  it("rejects text with an unpaired surrogate, which no store can keep as sent, and accepts paired ones", () => {
    expect(NewPlantSchema.safeParse({ id: 1n, name: "a\ud800" }).success).toBe(false);
    expect(NewPlantSchema.safeParse({ id: 1n, name: "a", tag: "\udc00b" }).success).toBe(false);
    expect(NewPlantSchema.safeParse({ id: 1n, name: "\ud83c\udf3f fern", tag: "\u{1F331}" }).success).toBe(true);
  });
});

describe("ErrorCode", () => {
  it("has unique int32 codes whose thousands give the HTTP status", () => {
    const codes = Object.values(ErrorCode);
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of codes) {
      expect(Number.isInteger(code) && code < 2 ** 31).toBe(true);
      expect(Math.floor(code / 100)).toBeGreaterThanOrEqual(400);
    }
  });

  it("maps codes back to names", () => {
    expect(errorCodeName(ErrorCode.PlantIdConflict)).toBe("PlantIdConflict");
    expect(errorCodeName(1)).toBeUndefined();
  });
});
