import { parse } from "lossless-json";

// An integer literal of at most 15 digits is below 2^53, so JSON.parse reads it exactly.
const MAX_EXACT_DIGITS = 15;
// Deeper values go to lossless-json, whose recursion decides where nesting ends (a RangeError, answered as 400).
const MAX_FAST_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const MINUS = 0x2d;
const DOT = 0x2e;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;

/**
 * Integer literals become bigint so that every int64 id survives exactly (JSON.parse would round
 * 9007199254740993 to ...992); other numbers stay numbers.
 */
function parseNumber(literal: string): bigint | number {
  return /^-?\d+$/.test(literal) ? BigInt(literal) : Number(literal);
}

function isDigit(code: number): boolean {
  return code >= DIGIT_0 && code <= DIGIT_9;
}

/**
 * How many object members JSON text holds (its colons outside strings), or undefined when one of its numbers
 * is not an integer literal JSON.parse reads exactly (it has a fraction, an exponent or over 15 digits).
 * Text that is not JSON may get any answer: JSON.parse refuses it.
 */
function memberCountIfShortIntegers(text: string): number | undefined {
  let members = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      i++;
      while (i < text.length && text.charCodeAt(i) !== QUOTE) i += text.charCodeAt(i) === BACKSLASH ? 2 : 1;
    } else if (code === COLON) {
      members++;
    } else if (code === MINUS || isDigit(code)) {
      const firstDigit = code === MINUS ? i + 1 : i;
      let end = firstDigit;
      while (isDigit(text.charCodeAt(end))) end++;
      const next = text.charCodeAt(end);
      if (end - firstDigit > MAX_EXACT_DIGITS || next === DOT || next === LOWER_E || next === UPPER_E) return undefined;
      i = end - 1;
    }
  }
  return members;
}

/**
 * Turns every number JSON.parse produced into a bigint, in place, and returns how many object members the
 * value holds; undefined when it nests deeper than MAX_FAST_DEPTH. (JSON.parse makes `__proto__` an own data
 * property, so assigning to it stores the bigint there and leaves the prototype alone.)
 */
function integersToBigInt(value: object, depth: number): number | undefined {
  if (depth > MAX_FAST_DEPTH) return undefined;
  let members = 0;
  const entries = value as Record<string, unknown>;
  const keys = Array.isArray(value) ? undefined : Object.keys(value);
  const length = keys ? keys.length : (value as unknown[]).length;
  for (let index = 0; index < length; index++) {
    const key = keys ? keys[index]! : index;
    const item = entries[key];
    if (typeof item === "number") {
      entries[key] = BigInt(item);
    } else if (typeof item === "object" && item !== null) {
      const nested = integersToBigInt(item, depth + 1);
      if (nested === undefined) return undefined;
      members += nested;
    }
  }
  return keys ? members + keys.length : members;
}

/**
 * The fast path: JSON.parse, taken only when the text proves it reads the same as lossless-json would
 * (every number a short integer literal, no key repeated); undefined otherwise. On a NewPlant body it
 * takes about half of lossless-json's time, which builds each string a character at a time.
 */
function parseWithJsonParse(text: string): { value: unknown } | undefined {
  const members = memberCountIfShortIntegers(text);
  if (members === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value === "number") return { value: BigInt(value) };
  if (typeof value !== "object" || value === null) return { value };
  // Fewer members than colons: JSON.parse kept the last of a repeated key, which lossless-json judges.
  return integersToBigInt(value, 1) === members ? { value } : undefined;
}

/**
 * Parses JSON text the way the API reads bodies: integer literals as bigint, repeated keys with different
 * values refused, and `__proto__` kept as a plain own key, so a body cannot pollute prototypes. lossless-json
 * defines the result and every error; JSON.parse serves the bodies it provably reads alike.
 * Throws lossless-json's SyntaxError for text that is not JSON.
 */
export function parseLosslessJson(text: string): unknown {
  const fast = parseWithJsonParse(text);
  return fast ? fast.value : parse(text, null, parseNumber);
}
