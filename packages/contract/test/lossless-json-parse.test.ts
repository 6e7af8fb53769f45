import { parse } from "lossless-json";
import { describe, expect, it } from "vitest";
import { parseLosslessJson } from "../src/lossless-json-parse.js";

// The reference: lossless-json alone, as the API read bodies before JSON.parse served the common ones.
const reference = (text: string) =>
  parse(text, null, (literal) => (/^-?\d+$/.test(literal) ? BigInt(literal) : Number(literal)));

/** A value written out with every type shown (bigint or number, -0, each object's prototype and own keys in order). */
function canonical(value: unknown): string {
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "number") return Object.is(value, -0) ? "-0" : String(value);
  if (typeof value !== "object" || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const prototype = Object.getPrototypeOf(value) === Object.prototype ? "" : "(not a plain object)";
  const members = Object.keys(value).map(
    (key) => `${JSON.stringify(key)}:${canonical(Object.getOwnPropertyDescriptor(value, key)?.value)}`,
  );
  return `${prototype}{${members.join(",")}}`;
}

/** What a parse gives, errors included, as text. */
function outcome(read: (text: string) => unknown, text: string): string {
  try {
    return canonical(read(text));
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}

function expectSameAsReference(text: string): void {
  expect(outcome(parseLosslessJson, text), text).toBe(outcome(reference, text));
}

// A small seeded generator, so every run checks the same texts.
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const ATOMS = [
  "0",
  "-0",
  "7",
  "-12",
  "999999999999999",
  "-999999999999999",
  "9007199254740993",
  "1234567890123456",
  "1.5",
  "-0.0",
  "1e3",
  "2E-2",
  "1.0",
  "true",
  "false",
  "null",
  '""',
  '"a:b"',
  '"q\\"uote:"',
  '"\\\\"',
  '"\\u0041\\ud800"',
  '"1e5"',
  '"__proto__"',
];
const KEYS = ['"id"', '"name"', '"tag"', '"a:b"', '"__proto__"', '"\\"k"', '"1"', '"constructor"'];

function generate(next: () => number, depth: number): string {
  const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)]!;
  const roll = next();
  if (depth > 3 || roll < 0.45) return pick(ATOMS);
  const size = Math.floor(next() * 4);
  if (roll < 0.6) return `[${Array.from({ length: size }, () => generate(next, depth + 1)).join(",")}]`;
  return `{${Array.from({ length: size }, () => `${pick(KEYS)}:${generate(next, depth + 1)}`).join(", ")}}`;
}

/** The text with one character dropped, doubled or replaced by a JSON punctuation mark: mostly not JSON. */
function mutate(text: string, next: () => number): string {
  const at = Math.floor(next() * text.length);
  const roll = next();
  if (roll < 0.33) return text.slice(0, at) + text.slice(at + 1);
  if (roll < 0.66) return text.slice(0, at) + text[at] + text.slice(at);
  return text.slice(0, at) + '{}[]:,"\\-. e0'[Math.floor(next() * 14)] + text.slice(at + 1);
}

describe("parseLosslessJson", () => {
  it("reads a NewPlant body with its id as a bigint", () => {
    expect(parseLosslessJson('{"id":42,"name":"Monstera","tag":"tropical"}')).toStrictEqual({
      id: 42n,
      name: "Monstera",
      tag: "tropical",
    });
  });

  it("keeps every int64 exact, fractions and exponents as numbers", () => {
    expect(parseLosslessJson('{"id": 9223372036854775807, "low": -9223372036854775808}')).toStrictEqual({
      id: 9223372036854775807n,
      low: -9223372036854775808n,
    });
    expect(parseLosslessJson('{"a": 1.0, "b": 1e3, "c": [999999999999999, 9007199254740993]}')).toStrictEqual({
      a: 1,
      b: 1000,
      c: [999999999999999n, 9007199254740993n],
    });
  });

  it("refuses a repeated key with another value and accepts one repeated with the same value", () => {
    expect(() => parseLosslessJson('{"name": "a", "name": "b"}')).toThrow(
      "Duplicate key 'name' encountered at position 15",
    );
    expect(parseLosslessJson('{"id": 1, "id": 1}')).toStrictEqual({ id: 1n });
  });

  it("keeps __proto__ as a plain own key, numbers in it included", () => {
    for (const text of ['{"__proto__": 5}', '{"__proto__": {"polluted": 1}}', '[{"__proto__": [1]}]']) {
      const value = parseLosslessJson(text) as Record<string, unknown>;
      const object = (Array.isArray(value) ? value[0] : value) as object;
      expect(Object.getPrototypeOf(object)).toBe(Object.prototype);
      expect(Object.keys(object)).toEqual(["__proto__"]);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("gives lossless-json's own message for text that is not JSON", () => {
    expect(() => parseLosslessJson("{id: 1}")).toThrow("Quoted object key expected but got 'i' at position 1");
    expect(() => parseLosslessJson('{"id": 01}')).toThrow(SyntaxError);
  });

  it("reads edge cases exactly as lossless-json does", () => {
    const texts = [
      "0",
      "-0",
      "12",
      "1e2",
      '"text"',
      "true",
      "null",
      "[]",
      "{}",
      " [ 1 , 2 ] ",
      '{"a":{}}',
      '{"a:b":"c:d","e":1}',
      '{"s":"\\"}:1"}',
      '{"x":"\\\\","y":2}',
      '{"a":-}',
      '{"a":1,}',
      "[1,]",
      '{"a" 1}',
      "[1 2]",
      "\ufeff{}",
      '{"a":"\t"}',
      '{"a":"\\u00"}',
      '"\\ud800"',
      '{"1":1,"0":0}',
      "9007199254740993",
      "-1234567890123456",
      "1234567890123456",
      '{"n":1E400}',
      "[".repeat(100_000),
      `${"[".repeat(20_000)}${"]".repeat(20_000)}`,
      `${"[".repeat(40)}${"]".repeat(40)}`,
      '{"a":1}{"b":2}',
      "[,]",
      "tru",
    ];
    for (const text of texts) expectSameAsReference(text);
  });

  it("reads 20,000 generated texts, and mutations of them, exactly as lossless-json does", () => {
    const next = random(26);
    for (let round = 0; round < 10_000; round++) {
      const text = generate(next, 0);
      expectSameAsReference(text);
      expectSameAsReference(mutate(text, next));
    }
  });
});
