import { describe, expect, it } from "vitest";
import { type Measurement, summarise } from "../src/measure.js";

function run(label: string, round: number, requestsPerSecond: number, cpuMicrosPerRequest: number): Measurement {
  return {
    label,
    connections: 50,
    round,
    load: {
      requests: requestsPerSecond,
      seconds: 1,
      requestsPerSecond,
      p50Ms: 1,
      p99Ms: 2,
      non2xx: 0,
      socketErrors: 0,
    },
    cpuMicrosPerRequest,
    threadCpuMicrosPerRequest: {
      "main thread": cpuMicrosPerRequest,
      "SQLite writer thread": 0,
      "V8 helper threads (GC, compiler)": 0,
      "other threads": 0,
    },
    rssBytes: 100,
    peakRssBytes: 100 + round,
  };
}

describe("summarise", () => {
  it("divides each round's throughput by the floor's in the same round, so drift between rounds cancels", () => {
    // The machine halves in speed in round 2: both servers slow down, the paired ratio stays 2x.
    const measurements = [
      run("floor", 0, 1000, 100),
      run("server", 0, 2000, 50),
      run("floor", 1, 500, 200),
      run("server", 1, 1000, 100),
      run("floor", 2, 1000, 100),
      run("server", 2, 3000, 40),
    ];

    const server = summarise(measurements, "floor").find((s) => s.label === "server")!;

    expect(server.ratioToReference).toEqual({ median: 2, min: 2, max: 3 });
    expect(server.cpuRatioToReference).toEqual({ median: 2, min: 2, max: 2.5 });
    expect(server.requestsPerSecond).toBe(2000);
    expect(server.peakRssBytes).toBe(102);
  });
});
