import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, tracesExport } from "../src/config.js";

const ENDPOINT = "http://127.0.0.1:4318";

describe("which OpenTelemetry variables turn trace export on", () => {
  it("exports nothing without an OTLP endpoint", () => {
    expect(tracesExport(loadConfig({}))).toBeUndefined();
    expect(tracesExport(loadConfig({ OTEL_SERVICE_NAME: "plant-store", OTEL_TRACES_SAMPLER: "always_on" }))).toBeUndefined();
  });

  it("exports OTLP protobuf over HTTP to OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", () => {
    expect(tracesExport(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT }))).toEqual({ protocol: "http/protobuf" });
    expect(tracesExport(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ENDPOINT}/v1/traces` }))).toEqual({
      protocol: "http/protobuf",
    });
  });

  it("takes the encoding from OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL", () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" };
    expect(tracesExport(loadConfig(env))).toEqual({ protocol: "http/json" });
    expect(tracesExport(loadConfig({ ...env, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf" }))).toEqual({
      protocol: "http/protobuf",
    });
  });

  it("stays off with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none", () => {
    expect(tracesExport(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: "true" }))).toBeUndefined();
    expect(tracesExport(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: "TRUE" }))).toBeUndefined();
    expect(tracesExport(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: "false" }))).toBeDefined();
    expect(tracesExport(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_TRACES_EXPORTER: "none" }))).toBeUndefined();
  });

  it.each([
    ["OTEL_EXPORTER_OTLP_PROTOCOL", { OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, /http\/protobuf or http\/json/],
    ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/xml" }, /http\/protobuf or http\/json/],
    ["OTEL_EXPORTER_OTLP_ENDPOINT", { OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" }, /http:\/\/ or https:\/\/ URL/],
    ["OTEL_TRACES_EXPORTER", { OTEL_TRACES_EXPORTER: "zipkin" }, /otlp/],
    ["OTEL_TRACES_SAMPLER", { OTEL_TRACES_SAMPLER: "sometimes" }, /parentbased_always_on/],
    ["OTEL_TRACES_SAMPLER_ARG", { OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "1.5" }, /1/],
    ["OTEL_TRACES_SAMPLER_ARG", { OTEL_TRACES_SAMPLER: "parentbased_traceidratio" }, /is required by parentbased_traceidratio/],
  ])("stops the start on a bad %s with a message naming it", (name, env, reason) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^invalid configuration: ${name}: `));
    expect(() => loadConfig(env)).toThrow(reason);
  });
});
