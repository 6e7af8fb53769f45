import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { signToken } from "../src/auth/sign-token.js";
import { createTestDatabase, describePostgres, type TestDatabase } from "./support/postgres.js";
import { type ReceivedSpan, startOtlpReceiver } from "./support/otlp-receiver.js";
import { type ServerProcess, startServerProcess } from "./support/server-process.js";
import { tempDir } from "@plant-store/test-support/temp-dir";

const SECRET = "tracing-test-secret-of-at-least-32-chars";
const REPORT_LOADED_MODULES = `--import ${new URL("./support/report-loaded-modules.mjs", import.meta.url).href}`;
const TOKEN = signToken({ secret: SECRET });
const SERVER = 2;
const INTERNAL = 1;
const CLIENT = 3;
const ERROR = 2;

const receiver = startOtlpReceiver;

async function server(env: Record<string, string>): Promise<ServerProcess> {
  const dir = tempDir("plant-store-tracing-");
  // KEEP_ALIVE_TIMEOUT_MS: fetch then keeps no idle connection for each graceful stop to wait out.
  const started = await startServerProcess({
    DATABASE_URL: join(dir, "plants.db"),
    JWT_SECRET: SECRET,
    KEEP_ALIVE_TIMEOUT_MS: "1000",
    ...env,
  });
  return started;
}

/** A W3C traceparent for a new trace, as a calling service would send it. */
function callerContext() {
  const traceId = randomBytes(16).toString("hex");
  const spanId = randomBytes(8).toString("hex");
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

let nextId = 1;

function createPlant(baseUrl: string, options: { token?: string; body?: string; traceparent?: string } = {}) {
  return fetch(`${baseUrl}/plants`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${options.token ?? TOKEN}`,
      "content-type": "application/json",
      ...(options.traceparent && { traceparent: options.traceparent }),
    },
    body: options.body ?? JSON.stringify({ id: nextId++, name: "Monstera", tag: "tropical" }),
  });
}

const inTrace = (spans: ReceivedSpan[], traceId: string) => spans.filter((span) => span.traceId === traceId);
const named = (spans: ReceivedSpan[], name: string) => {
  const found = spans.find((span) => span.name === name);
  if (found === undefined) throw new Error(`no span named ${name} in ${spans.map((span) => span.name).join(", ")}`);
  return found;
};
/** The trace a request's answer belongs to, found by the request id its log line and its response share. */
const traceOfResponse = (server: ServerProcess, requestId: string | null) => {
  const line = server
    .stdout()
    .split("\n")
    .filter((text) => text.includes(`"id":"${requestId}"`))
    .map((text) => JSON.parse(text) as { trace_id: string; span_id: string; msg: string })
    .find((entry) => entry.msg === "request completed");
  if (line === undefined) throw new Error(`no log line for request ${requestId}:\n${server.stdout()}`);
  return line;
};

describe.each(["http/protobuf", "http/json"])("traces exported over OTLP %s", (protocol) => {
  it("POST /plants continues the caller's traceparent: request, token, body and store spans, linked and described", async () => {
    const collector = await receiver();
    const plantStore = await server({
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_SERVICE_NAME: "plant-store-under-test",
      OTEL_BSP_SCHEDULE_DELAY: "20",
    });
    const caller = callerContext();

    const response = await createPlant(plantStore.baseUrl, { traceparent: caller.traceparent });
    expect(response.status).toBe(200);
    const spans = inTrace(await collector.waitFor((all) => inTrace(all, caller.traceId).length >= 4), caller.traceId);

    expect(collector.contentTypes[0]).toBe(protocol === "http/json" ? "application/json" : "application/x-protobuf");
    const request = named(spans, "POST /plants");
    expect(request).toMatchObject({ kind: SERVER, parentSpanId: caller.spanId, statusCode: 0 });
    expect(request.attributes).toMatchObject({
      "http.request.method": "POST",
      "http.route": "/plants",
      "http.response.status_code": 200,
      "url.path": "/plants",
      "url.scheme": "http",
      "server.address": "127.0.0.1",
    });
    expect(request.attributes).not.toHaveProperty("error.type");
    expect(request.resource).toMatchObject({ "service.name": "plant-store-under-test" });

    expect(named(spans, "verify token")).toMatchObject({
      kind: INTERNAL,
      parentSpanId: request.spanId,
      attributes: { "plant_store.token_cache.hit": false },
    });
    expect(named(spans, "validate body")).toMatchObject({
      kind: INTERNAL,
      parentSpanId: request.spanId,
      statusCode: 0,
    });
    expect(named(spans, "PlantStore.create")).toMatchObject({
      kind: INTERNAL,
      parentSpanId: request.spanId,
      attributes: {
        "db.system": "sqlite",
        "db.system.name": "sqlite",
        "db.operation.batch.size": 1,
        "plant_store.create.outcome": "created",
      },
    });

    // The access log line of the request carries its trace and the request span.
    await plantStore.waitForStdout(/"msg":"request completed"/);
    expect(traceOfResponse(plantStore, response.headers.get("x-request-id"))).toMatchObject({
      trace_id: caller.traceId,
      span_id: request.spanId,
    });
  });
});

describe("traced requests", () => {
  it("a request without traceparent starts a trace; a token seen before is a cache hit; failures carry error.type", async () => {
    const collector = await receiver();
    const plantStore = await server({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_BSP_SCHEDULE_DELAY: "20" });
    const traceOf = async (response: Response, spanCount: number) => {
      const requestId = response.headers.get("x-request-id");
      await plantStore.waitForStdout(new RegExp(`"id":"${requestId}".*"msg":"request completed"`));
      const { trace_id } = traceOfResponse(plantStore, requestId);
      return inTrace(await collector.waitFor((all) => inTrace(all, trace_id).length >= spanCount), trace_id);
    };

    expect((await createPlant(plantStore.baseUrl)).status).toBe(200);
    const second = await createPlant(plantStore.baseUrl);
    expect(second.status).toBe(200);
    const secondTrace = await traceOf(second, 4);
    expect(named(secondTrace, "POST /plants").parentSpanId).toBe("");
    expect(named(secondTrace, "verify token").attributes).toMatchObject({ "plant_store.token_cache.hit": true });

    const notAPlant = await createPlant(plantStore.baseUrl, { body: '{"id": "seven", "name": "Fern"}' });
    expect(notAPlant.status).toBe(400);
    const notAPlantTrace = await traceOf(notAPlant, 3);
    expect(named(notAPlantTrace, "validate body")).toMatchObject({
      statusCode: ERROR,
      attributes: { "error.type": "400" },
    });
    // For a server a 4xx is the client's doing, not a failure of the request span.
    expect(named(notAPlantTrace, "POST /plants")).toMatchObject({
      statusCode: 0,
      attributes: { "http.response.status_code": 400 },
    });
    expect(notAPlantTrace.map((span) => span.name)).not.toContain("PlantStore.create");

    const malformed = await createPlant(plantStore.baseUrl, { body: '{"id": 1,' });
    expect(malformed.status).toBe(400);
    expect(named(await traceOf(malformed, 3), "validate body").attributes).toMatchObject({
      "error.type": "MalformedJson",
    });

    const forged = await createPlant(plantStore.baseUrl, {
      token: signToken({ secret: "another-secret-of-at-least-32-characters" }),
    });
    expect(forged.status).toBe(401);
    expect(named(await traceOf(forged, 2), "verify token")).toMatchObject({
      statusCode: ERROR,
      attributes: { "error.type": "InvalidTokenError", "plant_store.token_cache.hit": false },
    });
  });

  it("spans still queued at shutdown are exported before the process exits; a 5xx request span carries error.type", async () => {
    const collector = await receiver();
    // The batch would wait a minute: only the shutdown's flush can send it.
    const plantStore = await server({
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: "60000",
      SHUTDOWN_DELAY_MS: "1000",
    });
    expect((await createPlant(plantStore.baseUrl)).status).toBe(200);
    plantStore.child.kill("SIGTERM");
    await plantStore.waitForStdout(/readiness is now 503/);
    const readiness = await fetch(`${plantStore.baseUrl}/readyz`);
    expect(readiness.status).toBe(503);
    expect(collector.spans).toEqual([]);

    expect(await plantStore.exited).toBe(0);
    expect(collector.spans.map((span) => span.name)).toEqual(
      expect.arrayContaining(["POST /plants", "verify token", "validate body", "PlantStore.create", "GET /readyz"]),
    );
    expect(named(collector.spans, "GET /readyz")).toMatchObject({
      statusCode: ERROR,
      attributes: { "http.response.status_code": 503, "error.type": "503", "http.route": "/readyz" },
    });
  });
});

describe("without an OTLP endpoint", () => {
  // report-loaded-modules.mjs prints every module the server loaded; the traced run is the control that shows
  // the listing names the SDK's packages when they are loaded.
  it("the server loads none of the OpenTelemetry SDK, ignores traceparent and logs no trace ids", async () => {
    // The listing is printed as the process exits: it is read once the process has exited and its output is all in.
    const wholeOutput = async (started: ServerProcess) => {
      started.child.kill("SIGTERM");
      await started.outputClosed;
      return started.stderr();
    };
    const collector = await receiver();
    const traced = await server({
      NODE_OPTIONS: REPORT_LOADED_MODULES,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
    });
    expect((await createPlant(traced.baseUrl)).status).toBe(200);
    expect(await wholeOutput(traced)).toContain("@opentelemetry/sdk-trace");

    const untraced = await server({ NODE_OPTIONS: REPORT_LOADED_MODULES });
    const response = await createPlant(untraced.baseUrl, { traceparent: callerContext().traceparent });
    expect(response.status).toBe(200);
    await untraced.waitForStdout(/"msg":"request completed"/);
    expect(await (await fetch(`${untraced.baseUrl}/metrics`)).text()).not.toContain("otel_sdk");
    const listing = await wholeOutput(untraced);
    expect(listing).toContain("dist/main.js");
    // Any @opentelemetry package but the API, which prom-client loads for its exemplars whatever we do.
    expect(listing).not.toMatch(/@opentelemetry[+/](?!api(?![\w-]))/);
    expect(untraced.stdout()).not.toContain("trace_id");
  }, 30_000);
});

describePostgres("traces with PostgreSQL", () => {
  let database: TestDatabase;

  it("the store span says postgresql, and pg's client spans of its batch are its children", async () => {
    database = await createTestDatabase();
    const collector = await receiver();
    const plantStore = await server({
      DATABASE_URL: database.url,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: "20",
    });
    const caller = callerContext();
    expect((await createPlant(plantStore.baseUrl, { traceparent: caller.traceparent })).status).toBe(200);

    const spans = inTrace(
      await collector.waitFor((all) => inTrace(all, caller.traceId).some((span) => span.name.startsWith("pg.query"))),
      caller.traceId,
    );
    const store = named(spans, "PlantStore.create");
    expect(store.attributes).toMatchObject({
      "db.system": "postgresql",
      "db.system.name": "postgresql",
      "db.operation.batch.size": 1,
    });
    const insert = spans.find((span) => span.name.startsWith("pg.query:INSERT"));
    expect(insert).toMatchObject({
      kind: CLIENT,
      parentSpanId: store.spanId,
      attributes: { "db.system.name": "postgresql" },
    });
  });
});
