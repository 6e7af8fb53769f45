import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { TracerProvider } from "@opentelemetry/sdk-trace";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPlantStoreClient } from "../src/index.js";

// A real HTTP peer on loopback that records the headers of each request and answers 200.
let server: Server;
let baseUrl: string;
let received: IncomingHttpHeaders[];
beforeEach(async () => {
  received = [];
  server = createServer((req, res) => {
    received.push(req.headers);
    req.resume().on("end", () => res.writeHead(200, { "content-type": "application/json" }).end('{"name":"Fern"}'));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
/** An app's tracing set up as with OpenTelemetry JS SDK 3: a tracer provider, a context manager, W3C propagation. */
function registerTracerProvider(): TracerProvider {
  const provider = new TracerProvider();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return provider;
}
afterEach(async () => {
  // Undo what a test registered globally, so no test sees another's tracer provider.
  trace.disable();
  context.disable();
  propagation.disable();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("trace context propagation", () => {
  it("continues the caller's active span: traceparent carries its trace and span ids", async () => {
    const provider = registerTracerProvider();
    const client = createPlantStoreClient({ baseUrl, token: "abc" });

    const caller = await trace.getTracer("caller").startActiveSpan("checkout", async (span) => {
      await client.plants.createOrThrow({ id: 1, name: "Fern" });
      span.end();
      return span.spanContext();
    });

    expect(received[0]?.traceparent).toBe(`00-${caller.traceId}-${caller.spanId}-01`);
    await provider.shutdown();
  });

  it("sends no traceparent when the caller has no active span", async () => {
    const provider = registerTracerProvider();
    await createPlantStoreClient({ baseUrl, token: "abc" }).plants.createOrThrow({ id: 2, name: "Fern" });
    expect(received[0]).not.toHaveProperty("traceparent");
    await provider.shutdown();
  });

  it("sends no traceparent when no tracer provider is registered, even inside a span", async () => {
    const client = createPlantStoreClient({ baseUrl, token: "abc" });
    await trace.getTracer("caller").startActiveSpan("checkout", async (span) => {
      await client.plants.createOrThrow({ id: 3, name: "Fern" });
      span.end();
    });
    expect(received[0]).not.toHaveProperty("traceparent");
    expect(Object.keys(received[0] ?? {})).not.toContain("tracestate");
  });
});
