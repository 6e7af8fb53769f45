import { ErrorCode, ErrorSchema, PlantSchema } from "@plant-store/contract";
import request from "supertest";
import { beforeEach, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./support/test-server.js";

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp({ store: "memory", bodyLimitBytes: 64 * 1024 });
});

const post = (body?: string | object, contentType = "application/json") => {
  const req = request(t.app).post("/plants").set(t.auth);
  if (body === undefined) return req;
  return req.set("Content-Type", contentType).send(typeof body === "string" ? body : JSON.stringify(body));
};

/** Asserts a contract Error response with this status and code, and that nothing was stored. */
function expectRejected(res: request.Response, status: number, code: number, message?: RegExp) {
  expect(res.status).toBe(status);
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  expect(ErrorSchema.strict().parse(res.body)).toEqual(res.body);
  expect(res.body.error).toBe(code);
  if (message) expect(res.body.message).toMatch(message);
  expect(t.rows()).toEqual([]);
}

describe("POST /plants with a valid NewPlant", () => {
  it("returns 200 with the Plant (name and tag) and stores it", async () => {
    const res = await post({ id: 1, name: "Monstera", tag: "tropical" });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(PlantSchema.strict().parse(res.body)).toEqual({ name: "Monstera", tag: "tropical" });
    expect(t.rows()).toEqual([{ id: 1n, name: "Monstera", tag: "tropical" }]);
  });

  it("returns 200 with a Plant without tag when none was given", async () => {
    const res = await post({ id: 2, name: "Fern" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: "Fern" });
    expect(t.rows()).toEqual([{ id: 2n, name: "Fern", tag: null }]);
  });

  it("accepts a Content-Type with charset=utf-8", async () => {
    const res = await post({ id: 3, name: "Aloe" }, "application/json; charset=utf-8");
    expect(res.status).toBe(200);
  });

  it("ignores fields NewPlant does not have, including __proto__, and stores only the plant", async () => {
    const res = await post('{"id": 4, "name": "Ivy", "color": "green", "__proto__": {"polluted": true}}');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: "Ivy" });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("POST /plants with a bad request body returns 400 and stores nothing", () => {
  it("without a body (the body is required)", async () => {
    expectRejected(await post(), 400, ErrorCode.BodyRequired, /body is required/);
  });

  it("with an empty body", async () => {
    expectRejected(await post(""), 400, ErrorCode.BodyRequired);
  });

  it("with a Content-Type other than application/json", async () => {
    expectRejected(await post('{"id":1,"name":"a"}', "text/plain"), 400, ErrorCode.UnsupportedContentType);
    expectRejected(
      await post('{"id":1,"name":"a"}', "application/json; charset=latin1"),
      400,
      ErrorCode.UnsupportedContentType,
    );
  });

  it("with malformed or truncated JSON", async () => {
    expectRejected(await post('{"id": 1, "name": '), 400, ErrorCode.MalformedJson, /not valid JSON/);
    expectRejected(await post("{id: 1}"), 400, ErrorCode.MalformedJson);
  });

  it("with bytes that are not UTF-8", async () => {
    const bytes = Buffer.concat([Buffer.from('{"id": 1, "name": "'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const res = await request(t.app)
      .post("/plants")
      .set(t.auth)
      .set("Content-Type", "application/json")
      .serialize((raw) => raw)
      .send(bytes);
    expectRejected(res, 400, ErrorCode.MalformedJson, /UTF-8/);
  });

  it("with a repeated key holding different values", async () => {
    expectRejected(await post('{"id": 1, "name": "a", "name": "b"}'), 400, ErrorCode.MalformedJson);
  });

  it.each([["[]"], ['"plant"'], ["42"], ["null"], ["true"]])("with JSON that is not an object: %s", async (body) => {
    expectRejected(await post(body), 400, ErrorCode.ValidationFailed, /body: must be an object/);
  });

  it("without name, naming the field", async () => {
    expectRejected(await post({ id: 1 }), 400, ErrorCode.ValidationFailed, /^name: is required$/);
  });

  it("without id, naming the field", async () => {
    expectRejected(await post({ name: "a" }), 400, ErrorCode.ValidationFailed, /^id: is required$/);
  });

  it('with the id as a string: "1" is not an id', async () => {
    expectRejected(
      await post({ id: "1", name: "a" }),
      400,
      ErrorCode.ValidationFailed,
      /id: must be an integer, got string/,
    );
  });

  it("with a numeric name: 5 is not a name", async () => {
    expectRejected(
      await post({ id: 1, name: 5 }),
      400,
      ErrorCode.ValidationFailed,
      /name: must be a string, got number/,
    );
  });

  it("with a null tag: null is not a tag", async () => {
    expectRejected(
      await post({ id: 1, name: "a", tag: null }),
      400,
      ErrorCode.ValidationFailed,
      /tag: must be a string, got null/,
    );
  });

  it.each([["1.5"], ["1e400"], ["true"], ["{}"], ["[1]"]])("with a non-integer id: %s", async (id) => {
    expectRejected(await post(`{"id": ${id}, "name": "a"}`), 400, ErrorCode.ValidationFailed, /^id: /);
  });

  it.each([["9223372036854775808"], ["-9223372036854775809"], ["123456789012345678901234567890"]])(
    "with an id outside int64: %s",
    async (id) => {
      expectRejected(
        await post(`{"id": ${id}, "name": "a"}`),
        400,
        ErrorCode.ValidationFailed,
        /id: must be an integer from -2\^63/,
      );
    },
  );
});

describe("POST /plants with a body over the limit", () => {
  it("returns 413 with an Error body and stores nothing", async () => {
    const res = await post({ id: 1, name: "x".repeat(70 * 1024) });
    expectRejected(res, 413, ErrorCode.PayloadTooLarge, /larger than the limit of 65536 bytes/);
  });
});

describe("routes outside the contract", () => {
  it("an unknown route returns 404 with an Error body", async () => {
    const res = await request(t.app).get("/nothing-here");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: ErrorCode.NotFound, message: "no route for GET /nothing-here" });
  });

  it("GET /plants is not an operation of this API: 404", async () => {
    const res = await request(t.app).get("/plants").set(t.auth);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe(ErrorCode.NotFound);
  });

  it("responses do not advertise Express", async () => {
    const res = await post({ id: 1, name: "a" });
    expect(res.headers["x-powered-by"]).toBeUndefined();
  });
});

describe("an unexpected failure", () => {
  it("returns 500 with a generic Error body and no internal detail", async () => {
    await t.store.close(); // the database is gone: the store throws an internal error
    const res = await post({ id: 1, name: "a" });
    expect(res.status).toBe(500);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.body).toEqual({ error: ErrorCode.InternalError, message: "internal server error" });
  });
});
