import { createSecretKey } from "node:crypto";
import fc from "fast-check";
import jwt from "jsonwebtoken";
import { TEST_SECRET } from "../../support/tokens.js";

/** One generated request: its headers, its body bytes, and what the generator knows about it. */
export interface HostileRequest {
  authorization: string | undefined;
  /** Whether `authorization` carries a token the server must accept. */
  authorized: boolean;
  contentType: string | undefined;
  /** Sent with Transfer-Encoding: chunked instead of Content-Length. */
  chunked: boolean;
  extraHeaders: Record<string, string>;
  body: Buffer;
  /** How the body was made, for failure messages. */
  shape: string;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const now = () => Math.floor(Date.now() / 1000);
const key = createSecretKey(Buffer.from(TEST_SECRET, "utf8"));
const sign = (claims: object, secret: jwt.Secret = key, options: jwt.SignOptions = { algorithm: "HS256" }) =>
  jwt.sign({ sub: "fuzz", exp: now() + 3600, ...claims }, secret, options);

// ---- JSON text, built as text so that literals JSON.stringify cannot write (-0, 1e400, 2^70) appear.

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit));
const anyText = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.string({ unit: "grapheme" }),
  fc.string({ unit: fc.oneof(fc.string({ unit: "binary", minLength: 1, maxLength: 1 }), loneSurrogate) }),
  fc.constantFrom("", " ", "\u0000", "\uFEFF", "\u202E", "a".repeat(5000)),
);
/** A JSON string literal; lone surrogates appear escaped (\ud800), as JSON.stringify writes them. */
const stringLiteral = anyText.map((text) => JSON.stringify(text));

const numberLiteral = fc.oneof(
  fc.bigInt({ min: INT64_MIN, max: INT64_MAX }).map(String),
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String),
  fc.double().filter(Number.isFinite).map(String),
  fc.constantFrom(
    "-0",
    "0.0",
    "-0.0",
    "1e3",
    "1E+2",
    "1e-7",
    "-1e-7",
    "1.5",
    "1.0",
    "9007199254740993",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "1e400",
    "-1e400",
    "1e-400",
    `1${"0".repeat(400)}`,
    `0.${"0".repeat(300)}1`,
    "123456789012345678901234567890e-10",
  ),
);
/** Tokens that look like JSON but are not: these make a body malformed wherever they appear. */
const invalidLiteral = fc.constantFrom(
  "+1",
  ".5",
  "01",
  "NaN",
  "Infinity",
  "-",
  "0x10",
  "'x'",
  "undefined",
  "tru",
  "1e",
  '"\\x"',
  '"\\ud800',
);

const scalarLiteral = fc.oneof(
  { weight: 3, arbitrary: numberLiteral },
  { weight: 3, arbitrary: stringLiteral },
  { weight: 1, arbitrary: fc.constantFrom("true", "false", "null") },
);
const trickyKey = fc.oneof(
  fc.constantFrom(
    "id",
    "name",
    "tag",
    "__proto__",
    "constructor",
    "prototype",
    "ID",
    "Name",
    " id",
    "id\u0000",
    "toString",
    "hasOwnProperty",
  ),
  fc.string(),
);
const objectText = (entries: [string, string][]) =>
  `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`;

/** Any JSON value as text, nested a few levels, with tricky keys and literals. */
const { value: jsonValueText } = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    scalarLiteral,
    fc.array(tie("value"), { maxLength: 5 }).map((items) => `[${items.join(",")}]`),
    fc.array(fc.tuple(trickyKey, tie("value")), { maxLength: 5 }).map(objectText),
  ),
}));

/** Payloads aimed at prototypes: `__proto__` and `constructor.prototype` carrying properties. */
export const pollutingValue = fc.oneof(
  fc.constantFrom(
    `{"polluted":"yes","tag":"from-proto","isAdmin":true}`,
    `{"prototype":{"polluted":"yes"}}`,
    `{"__proto__":{"polluted":"yes"}}`,
    `[{"polluted":"yes"}]`,
  ),
  jsonValueText,
);
const pollutingEntry = fc.oneof(
  fc.tuple(fc.constant("__proto__"), pollutingValue),
  fc.tuple(fc.constant("constructor"), pollutingValue),
  fc.tuple(
    fc.constant("constructor"),
    pollutingValue.map((inner) => `{"prototype":${inner}}`),
  ),
);

/**
 * NewPlants and near misses: each field is usually right and sometimes wrong in type or range,
 * sometimes missing, sometimes repeated, with extra and prototype-named keys around it.
 */
const newPlantText = fc
  .record({
    id: fc.option(
      fc.oneof(
        { weight: 8, arbitrary: fc.bigInt({ min: INT64_MIN, max: INT64_MAX }).map(String) },
        { weight: 2, arbitrary: jsonValueText },
      ),
      { freq: 10 },
    ),
    name: fc.option(fc.oneof({ weight: 8, arbitrary: stringLiteral }, { weight: 2, arbitrary: jsonValueText }), {
      freq: 10,
    }),
    tag: fc.option(fc.oneof({ weight: 8, arbitrary: stringLiteral }, { weight: 2, arbitrary: jsonValueText })),
    extra: fc.array(fc.oneof(pollutingEntry, fc.tuple(trickyKey, jsonValueText)), { maxLength: 3 }),
    repeatFirst: fc.integer({ min: 0, max: 9 }).map((roll) => roll < 3),
  })
  .chain(({ id, name, tag, extra, repeatFirst }) => {
    const entries: [string, string][] = [];
    if (id !== null) entries.push(["id", id]);
    if (name !== null) entries.push(["name", name]);
    if (tag !== null) entries.push(["tag", tag]);
    entries.push(...extra);
    if (repeatFirst && entries[0]) entries.push(entries[0]);
    return fc.shuffledSubarray(entries, { minLength: entries.length, maxLength: entries.length }).map(objectText);
  });

const deepNesting = fc
  .tuple(fc.integer({ min: 1, max: 100_000 }), fc.boolean())
  .map(([depth, arrays]) =>
    arrays
      ? `{"id":1,"name":${"[".repeat(depth)}${"]".repeat(depth)}}`
      : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`,
  );

const jsonText = fc.oneof(
  { weight: 6, arbitrary: newPlantText },
  { weight: 2, arbitrary: fc.jsonValue().map((value) => JSON.stringify(value)) },
  { weight: 2, arbitrary: jsonValueText },
  { weight: 1, arbitrary: deepNesting },
  {
    weight: 1,
    arbitrary: fc.tuple(newPlantText, invalidLiteral).map(([text, bad]) => text.replace(/:[^,}]*/, `:${bad}`)),
  },
);

const INVALID_UTF8 = [
  [0xff],
  [0x80],
  [0xc0, 0x80],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xe2, 0x82],
  [0xfe, 0xff],
];

/** Bodies as bytes: the JSON text, or the text truncated, padded past the limit, or with invalid UTF-8. */
const bodyOf = (limitBytes: number) =>
  fc.oneof(
    { weight: 10, arbitrary: jsonText.map((text) => ({ body: Buffer.from(text, "utf8"), shape: "json" })) },
    {
      weight: 2,
      arbitrary: fc.tuple(jsonText, fc.nat()).map(([text, cut]) => ({
        body: Buffer.from(text.slice(0, cut % Math.max(1, text.length)), "utf8"),
        shape: "truncated",
      })),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(jsonText, fc.nat(), fc.constantFrom(...INVALID_UTF8)).map(([text, at, bad]) => {
        const bytes = Buffer.from(text, "utf8");
        const cut = at % (bytes.length + 1);
        return {
          body: Buffer.concat([bytes.subarray(0, cut), Buffer.from(bad), bytes.subarray(cut)]),
          shape: "invalid-utf8",
        };
      }),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom("", " ", "\r\n", "\uFEFF", "null", "{}{}", "{} x")
        .map((text) => ({ body: Buffer.from(text, "utf8"), shape: "edge" })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(newPlantText, fc.integer({ min: 1, max: 4096 })).map(([text, over]) => ({
        body: Buffer.from(text.padEnd(limitBytes + over, " "), "utf8"),
        shape: "over-limit",
      })),
    },
  );

// ---- Headers.

const headerText = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 60,
});

const contentType = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.constantFrom(
      "application/json",
      "application/json; charset=utf-8",
      'Application/JSON; Charset="UTF-8"',
      "application/json;charset=UTF-8",
    ),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      undefined,
      "",
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/json; charset=latin1",
      "application/json; charset=utf-16",
      "application/merge-patch+json",
      "application/json;;",
      "application/json; charset",
      "json",
      "*/*",
      "application/json, text/plain",
    ),
  },
  { weight: 1, arbitrary: headerText },
);

const authorization: fc.Arbitrary<{ header: string | undefined; authorized: boolean }> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc
      .constantFrom("Bearer ", "bearer ", "BEARER ", "Bearer   ")
      .map((scheme) => ({ header: `${scheme}${sign({})}`, authorized: true })),
  },
  {
    weight: 4,
    arbitrary: fc
      .constantFrom(
        () => undefined,
        () => "",
        () => "Bearer",
        () => "Bearer ",
        () => "Basic dXNlcjpwYXNz",
        () => `Bearer ${sign({})}x`,
        () => `Bearer ${sign({}).replace(/\.[^.]+\./, ".eyJzdWIiOiJhZG1pbiJ9.")}`,
        () => `Bearer ${sign({ exp: now() - 600 })}`,
        () => `Bearer ${sign({ nbf: now() + 600 })}`,
        () => `Bearer ${jwt.sign({ sub: "fuzz" }, key, { algorithm: "HS256" })}`,
        () => `Bearer ${jwt.sign({ sub: "fuzz", exp: now() + 60 }, "", { algorithm: "none" })}`,
        () => `Bearer ${sign({}, "another-secret-that-is-at-least-32-characters")}`,
        () => `Bearer ${sign({}, key, { algorithm: "HS512" })}`,
        () => `Bearer ${sign({})} ${sign({})}`,
        () => `Bearer ${sign({})}, Bearer ${sign({})}`,
        () => `Token ${sign({})}`,
      )
      .map((make) => ({ header: make(), authorized: false })),
  },
  { weight: 1, arbitrary: headerText.map((header) => ({ header, authorized: false })) },
  {
    weight: 1,
    arbitrary: headerText.map((junk) => ({ header: `Bearer ${junk.replace(/\s/g, "")}.${junk}`, authorized: false })),
  },
);

const extraHeaders = fc.dictionary(
  fc.constantFrom(
    "x-request-id",
    "accept",
    "accept-charset",
    "content-encoding",
    "x-forwarded-for",
    "cookie",
    "user-agent",
    "x-http-method-override",
    "origin",
  ),
  headerText,
  { maxKeys: 3 },
);

/** Hostile POST /plants requests for a server whose body limit is `limitBytes`. */
export function hostileRequest(limitBytes: number): fc.Arbitrary<HostileRequest> {
  return fc
    .record({ auth: authorization, contentType, chunked: fc.boolean(), extraHeaders, body: bodyOf(limitBytes) })
    .map(({ auth, contentType, chunked, extraHeaders, body }) => ({
      authorization: auth.header,
      authorized: auth.authorized,
      contentType,
      chunked,
      extraHeaders,
      body: body.body,
      shape: body.shape,
    }));
}

/** A short description of a request for failure messages (bodies can be 100 KiB of brackets). */
export function describeRequest(request: HostileRequest): string {
  const text = request.body.toString("utf8");
  const body = text.length > 300 ? `${text.slice(0, 300)}… (${request.body.length} bytes)` : text;
  return JSON.stringify({ ...request, body, authorization: request.authorization?.slice(0, 60) });
}

/**
 * JSON bodies built around prototype-polluting keys, half of them otherwise valid NewPlants (given their
 * id when sent), so that they travel the whole way: parser, validation, handler, store, response, logs.
 */
export const pollutingBody: fc.Arbitrary<(id: bigint) => string> = fc
  .tuple(fc.array(pollutingEntry, { minLength: 1, maxLength: 4 }), fc.boolean())
  .map(
    ([entries, asPlant]) =>
      (id: bigint) =>
        objectText([
          ...(asPlant
            ? ([
                ["id", String(id)],
                ["name", '"polluter"'],
              ] as [string, string][])
            : []),
          ...entries,
        ]),
  );
