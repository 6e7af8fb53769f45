import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
} from "@opentelemetry/sdk-trace";
import type { TracesExport } from "./traces-export.js";

/**
 * The sampler OTEL_TRACES_SAMPLER names, as the OpenTelemetry specification defines each: SDK 3 no longer
 * builds it from the environment itself. The configuration has checked that a ratio sampler has its ratio.
 */
export function samplerFor({ name, ratio = 1 }: TracesExport["sampler"]): Sampler {
  const root = (() => {
    switch (name) {
      case "always_on":
      case "parentbased_always_on":
        return new AlwaysOnSampler();
      case "always_off":
      case "parentbased_always_off":
        return new AlwaysOffSampler();
      case "traceidratio":
      case "parentbased_traceidratio":
        return new TraceIdRatioBasedSampler(ratio);
    }
  })();
  return name.startsWith("parentbased_") ? new ParentBasedSampler({ root }) : root;
}
