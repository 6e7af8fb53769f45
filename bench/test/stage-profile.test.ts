import { describe, expect, it } from "vitest";
import { type StageProfile, stageComparisonMarkdown } from "../src/stage-profile.js";

function profile(cpu: number, stages: [string, number][]): StageProfile {
  return {
    connections: 50,
    requests: 1000,
    cpuMicrosPerRequest: cpu,
    threadCpuMicrosPerRequest: {
      "main thread": cpu,
      "SQLite writer thread": 0,
      "V8 helper threads (GC, compiler)": 0,
      "other threads": 0,
    },
    mainStages: new Map(stages),
    workers: [],
  };
}

describe("two stage profiles side by side", () => {
  it("lists every stage of either, per request, largest first, with a dash where a server has none and the difference", () => {
    const server = profile(45, [
      ["HTTP: node:http and the socket", 20_000],
      ["parse (body)", 4_000],
      ["HTTP: Express and its router", 3_000],
    ]);
    const peer = profile(40, [
      ["HTTP: node:http and the socket", 15_000],
      ["parse (body)", 1_000],
      ["auth", 9_000],
    ]);
    expect(stageComparisonMarkdown({ label: "server", profile: server }, { label: "peer", profile: peer })).toEqual([
      "| Stage | server | peer | difference |",
      "|---|---:|---:|---:|",
      "| HTTP: node:http and the socket | 20.0 | 15.0 | 5.0 |",
      "| auth | – | 9.0 | -9.0 |",
      "| parse (body) | 4.0 | 1.0 | 3.0 |",
      "| HTTP: Express and its router | 3.0 | – | 3.0 |",
      "| **main thread busy** | 27.0 | 25.0 | 2.0 |",
      "| CPU per request, all threads, /proc (measured run) | 45.0 | 40.0 | 5.0 |",
      "",
    ]);
  });
});
