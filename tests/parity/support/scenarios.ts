import { ErrorCode, INT64_MAX, INT64_MIN } from "@plant-store/contract";
import type { Exchange } from "./exchange.js";
import { BODY_LIMIT_BYTES } from "./targets.js";

/** A step: one request, or requests sent at once (then only their statuses are compared, sorted). */
export type Step = Exchange | { parallel: Exchange[] };

/** What the real server must answer to each step: a status and, for errors, the code. */
export type Expected = { status: number; error?: number } | { statuses: number[] };

export interface Scenario {
  name: string;
  /** The steps, given a function that makes ids unique to this scenario (both targets share no state). */
  steps: (id: (n: number) => string) => Step[];
  expected: Expected[];
}

const json = { "content-type": "application/json" };
const post = (body: string | Uint8Array, headers: Record<string, string> = json): Exchange => ({
  method: "POST",
  path: "/plants",
  auth: true,
  headers,
  body,
});
const ok = { status: 200 };
const bad = (error: number) => ({ status: 400, error });

/**
 * The HTTP-level behaviour of apps/server that needs neither real JWTs nor a look into its database:
 * create-plant.test.ts, idempotency.test.ts, the missing-token cases of auth.test.ts, 404, 413, Content-Type.
 */
export const scenarios: Scenario[] = [
  {
    name: "a valid NewPlant is created, with and without tag, and ignores unknown fields and __proto__",
    steps: (id) => [
      post(`{"id": ${id(1)}, "name": "Monstera", "tag": "tropical"}`),
      post(`{"id": ${id(2)}, "name": "Fern"}`),
      post(`{"id": ${id(3)}, "name": "Aloe"}`, { "content-type": "application/json; charset=utf-8" }),
      post(`{"id": ${id(4)}, "name": "Ivy", "color": "green", "__proto__": {"polluted": true}}`),
    ],
    expected: [ok, ok, ok, ok],
  },
  {
    name: "no body, an empty body, or a Content-Type that is not JSON (UTF-8)",
    steps: (id) => [
      { method: "POST", path: "/plants", auth: true },
      post(""),
      post(`{"id":${id(1)},"name":"a"}`, { "content-type": "text/plain" }),
      post(`{"id":${id(1)},"name":"a"}`, { "content-type": "application/json; charset=latin1" }),
      post(`{"id":${id(1)},"name":"a"}`, {}),
      post(`{"id":${id(1)},"name":"a"}`, { "content-type": "application/json; charset" }),
    ],
    expected: [
      bad(ErrorCode.BodyRequired),
      bad(ErrorCode.BodyRequired),
      bad(ErrorCode.UnsupportedContentType),
      bad(ErrorCode.UnsupportedContentType),
      bad(ErrorCode.UnsupportedContentType),
      bad(ErrorCode.UnsupportedContentType),
    ],
  },
  {
    name: "malformed JSON, bytes that are not UTF-8, a repeated key, a body of blanks",
    steps: (id) => [
      post(`{"id": ${id(1)}, "name": `),
      post("{id: 1}"),
      post(new Uint8Array([...new TextEncoder().encode('{"id": 1, "name": "'), 0xff, 0xfe, 0x22, 0x7d])),
      post(`{"id": ${id(1)}, "name": "a", "name": "b"}`),
      post("   "),
    ],
    expected: [
      bad(ErrorCode.MalformedJson),
      bad(ErrorCode.MalformedJson),
      bad(ErrorCode.MalformedJson),
      bad(ErrorCode.MalformedJson),
      bad(ErrorCode.BodyRequired),
    ],
  },
  {
    name: "JSON that is not a NewPlant names the field",
    steps: (id) => [
      ...["[]", '"plant"', "42", "null", "true"].map((body) => post(body)),
      post(`{"id": ${id(1)}}`),
      post('{"name": "a"}'),
      post('{"id": "1", "name": "a"}'),
      post(`{"id": ${id(1)}, "name": 5}`),
      post(`{"id": ${id(1)}, "name": "a", "tag": null}`),
      ...["1.5", "1e400", "true", "{}", "[1]"].map((value) => post(`{"id": ${value}, "name": "a"}`)),
      ...["9223372036854775808", "-9223372036854775809", "123456789012345678901234567890"].map((value) =>
        post(`{"id": ${value}, "name": "a"}`),
      ),
      post(`{"id": ${id(1)}, "name": "nul\\u0000"}`),
      post(`{"id": ${id(1)}, "name": "half \\ud800 a pair"}`),
      post(`{"id": ${id(1)}, "name": 1, "tag": 2}`),
    ],
    expected: Array.from({ length: 21 }, () => bad(ErrorCode.ValidationFailed)),
  },
  {
    name: "a body over the limit is 413",
    steps: (id) => [post(`{"id": ${id(1)}, "name": "${"x".repeat(BODY_LIMIT_BYTES + 6 * 1024)}"}`)],
    expected: [{ status: 413, error: ErrorCode.PayloadTooLarge }],
  },
  {
    name: "routes outside the contract are 404",
    steps: () => [
      { method: "GET", path: "/nothing-here" },
      { method: "GET", path: "/plants", auth: true },
      { method: "PUT", path: "/plants?x=1", auth: true, headers: json, body: "{}" },
      { method: "DELETE", path: "/plants/1" },
    ],
    expected: [404, 404, 404, 404].map((status) => ({ status, error: ErrorCode.NotFound })),
  },
  {
    name: "the route matches as Express matches it: in any case, with or without a trailing slash, any query",
    steps: (id) => [
      { ...post(`{"id": ${id(1)}, "name": "a"}`), path: "/Plants" },
      { ...post(`{"id": ${id(2)}, "name": "b"}`), path: "/plants/" },
      { ...post(`{"id": ${id(3)}, "name": "c"}`), path: "/plants?dry=1" },
      { ...post(`{"id": ${id(4)}, "name": "d"}`), path: "/plants//" },
      { ...post(`{"id": ${id(5)}, "name": "e"}`), path: "/plants/x" },
    ],
    expected: [ok, ok, ok, { status: 404 }, { status: 404 }],
  },
  {
    name: "a missing bearer token is 401 MissingToken before the body is looked at; an empty one is malformed",
    steps: (id) => [
      { ...post(`{"id": ${id(1)}, "name": "Fern"}`), auth: false },
      { ...post(`{"id": ${id(1)}, "name": "Fern"}`, { ...json, authorization: "Basic dXNlcjpwYXNz" }), auth: false },
      { ...post("{not json", json), auth: false },
      { ...post("x".repeat(BODY_LIMIT_BYTES + 10), json), auth: false },
      { ...post(`{"id": ${id(1)}, "name": "Fern"}`, { ...json, authorization: "Bearer " }), auth: false },
    ],
    expected: [
      { status: 401, error: ErrorCode.MissingToken },
      { status: 401, error: ErrorCode.MissingToken },
      { status: 401, error: ErrorCode.MissingToken },
      { status: 401, error: ErrorCode.MissingToken },
      { status: 401, error: ErrorCode.InvalidToken },
    ],
  },
  {
    name: "the id is the idempotency key: identical repeats are 200, any difference is 409",
    steps: (id) => [
      post(`{"id": ${id(7)}, "name": "Cactus", "tag": "desert"}`),
      post(`{"tag": "desert", "name": "Cactus", "id": ${id(7)}}`),
      post(`{"id": ${id(7)}, "name": "Rose", "tag": "desert"}`),
      post(`{"id": ${id(8)}, "name": "Palm", "tag": "indoor"}`),
      post(`{"id": ${id(8)}, "name": "Palm"}`),
      post(`{"id": ${id(8)}, "name": "Palm", "tag": "outdoor"}`),
      post(`{"id": ${id(9)}, "name": "Moss"}`),
      post(`{"id": ${id(9)}, "name": "Moss", "tag": ""}`),
      post(`{"id": ${id(9)}, "name": "Moss"}`),
    ],
    expected: [
      ok,
      ok,
      { status: 409, error: ErrorCode.PlantIdConflict },
      ok,
      { status: 409 },
      { status: 409 },
      ok,
      { status: 409 },
      ok,
    ],
  },
  {
    name: "concurrent creates of one id: identical ones all 200, different ones one 200 and the rest 409",
    steps: (id) => [
      { parallel: Array.from({ length: 20 }, () => post(`{"id": ${id(42)}, "name": "Basil", "tag": "herb"}`)) },
      { parallel: Array.from({ length: 10 }, (_, i) => post(`{"id": ${id(43)}, "name": "Plant ${i}"}`)) },
    ],
    expected: [{ statuses: Array(20).fill(200) }, { statuses: [200, ...Array(9).fill(409)] }],
  },
  {
    name: "ids are int64, kept exactly: the edges, 2^53+1 beside 2^53, and -0 as 0",
    steps: () => [
      ...[INT64_MIN, INT64_MAX, -1n, 9007199254740993n, 9007199254740992n, 0n].map((id) =>
        post(`{"id": ${id}, "name": "edge ${id}"}`),
      ),
      ...[INT64_MIN, INT64_MAX, 9007199254740993n].map((id) => post(`{"id": ${id}, "name": "other"}`)),
      post('{"id": -0, "name": "edge 0"}'),
    ],
    expected: [ok, ok, ok, ok, ok, ok, { status: 409 }, { status: 409 }, { status: 409 }, ok],
  },
  {
    name: "X-Request-Id is echoed when safe to log, else a new UUID, on every answer",
    steps: (id) => [
      post(`{"id": ${id(1)}, "name": "a"}`, { ...json, "x-request-id": "trace-123.abc:1" }),
      post(`{"id": ${id(1)}, "name": "a"}`, { ...json, "x-request-id": "has spaces and ; semicolons" }),
      { method: "GET", path: "/nothing-here", headers: { "x-request-id": "lost-1" } },
      { method: "POST", path: "/plants", headers: { "x-request-id": "anon-1" } },
    ],
    expected: [ok, ok, { status: 404 }, { status: 401 }],
  },
];
