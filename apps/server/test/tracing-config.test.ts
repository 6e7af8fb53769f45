import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { tracesExport } from "../src/startup/options-from-config.js";
import { samplerFor } from "../src/tracing/sampler.js";
import { ConfigError } from "../src/operator-errors.js";

const ENDPOINT = "http://127.0.0.1:4318";
const protocolOf = (env: Record<string, string>) => tracesExport(loadConfig(env))?.protocol;

describe("which OpenTelemetry variables turn trace export on", () => {
  it("exports nothing without an OTLP endpoint", () => {
    expect(tracesExport(loadConfig({}))).toBeUndefined();
    expect(
      tracesExport(loadConfig({ OTEL_SERVICE_NAME: "plant-store", OTEL_TRACES_SAMPLER: "always_on" })),
    ).toBeUndefined();
  });

  it("exports OTLP protobuf over HTTP to OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", () => {
    expect(protocolOf({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT })).toBe("http/protobuf");
    expect(protocolOf({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ENDPOINT}/v1/traces` })).toBe("http/protobuf");
  });

  it("takes the encoding from OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL", () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" };
    expect(protocolOf(env)).toBe("http/json");
    expect(protocolOf({ ...env, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf" })).toBe("http/protobuf");
  });

  // SDK 3 reads neither from the environment: the server hands them to it.
  it("takes the sampler and the batch span processor's options from OTEL_TRACES_SAMPLER* and OTEL_BSP_*", () => {
    expect(tracesExport(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT }))).toMatchObject({
      sampler: { name: "parentbased_always_on" },
      batch: { maxQueueSize: 2048, maxExportBatchSize: 512, scheduledDelayMillis: 5000, exportTimeoutMillis: 30000 },
    });
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT,
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.1",
      OTEL_BSP_MAX_QUEUE_SIZE: "8",
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "4",
      OTEL_BSP_SCHEDULE_DELAY: "20",
      OTEL_BSP_EXPORT_TIMEOUT: "1000",
    };
    expect(tracesExport(loadConfig(env))).toMatchObject({
      sampler: { name: "parentbased_traceidratio", ratio: 0.1 },
      batch: { maxQueueSize: 8, maxExportBatchSize: 4, scheduledDelayMillis: 20, exportTimeoutMillis: 1000 },
    });
  });

  it.each([
    ["always_on", undefined, "AlwaysOnSampler"],
    ["always_off", undefined, "AlwaysOffSampler"],
    ["traceidratio", 0.25, "TraceIdRatioBased{0.25}"],
    ["parentbased_always_on", undefined, "ParentBased{root=AlwaysOnSampler"],
    ["parentbased_always_off", undefined, "ParentBased{root=AlwaysOffSampler"],
    ["parentbased_traceidratio", 0.1, "ParentBased{root=TraceIdRatioBased{0.1}"],
  ] as const)("OTEL_TRACES_SAMPLER=%s builds the specification's sampler", (name, ratio, described) => {
    expect(samplerFor({ name, ...(ratio !== undefined && { ratio }) }).toString()).toContain(described);
  });

  it("stays off with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none", () => {
    expect(
      tracesExport(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: "true" })),
    ).toBeUndefined();
    expect(
      tracesExport(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: "TRUE" })),
    ).toBeUndefined();
    expect(
      tracesExport(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: "false" })),
    ).toBeDefined();
    expect(
      tracesExport(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_TRACES_EXPORTER: "none" })),
    ).toBeUndefined();
  });

  it.each([
    ["OTEL_EXPORTER_OTLP_PROTOCOL", { OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, /http\/protobuf or http\/json/],
    [
      "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
      { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/xml" },
      /http\/protobuf or http\/json/,
    ],
    ["OTEL_EXPORTER_OTLP_ENDPOINT", { OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" }, /http:\/\/ or https:\/\/ URL/],
    ["OTEL_TRACES_EXPORTER", { OTEL_TRACES_EXPORTER: "zipkin" }, /otlp/],
    ["OTEL_TRACES_SAMPLER", { OTEL_TRACES_SAMPLER: "sometimes" }, /parentbased_always_on/],
    ["OTEL_TRACES_SAMPLER_ARG", { OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "1.5" }, /1/],
    [
      "OTEL_TRACES_SAMPLER_ARG",
      { OTEL_TRACES_SAMPLER: "parentbased_traceidratio" },
      /is required by parentbased_traceidratio/,
    ],
    ["OTEL_BSP_MAX_QUEUE_SIZE", { OTEL_BSP_MAX_QUEUE_SIZE: "many" }, /number/],
    ["OTEL_BSP_SCHEDULE_DELAY", { OTEL_BSP_SCHEDULE_DELAY: "-1" }, /0/],
    [
      "OTEL_BSP_MAX_EXPORT_BATCH_SIZE",
      { OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "4096" },
      /must not exceed OTEL_BSP_MAX_QUEUE_SIZE/,
    ],
  ])("stops the start on a bad %s with a message naming it", (name, env, reason) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^invalid configuration: ${name}: `));
    expect(() => loadConfig(env)).toThrow(reason);
  });
});
