import { describe, expect, it } from "vitest";
import { floorMarkdown } from "../src/floor.js";
import { threadCpuTable } from "../src/report.js";
import type { Measurement } from "../src/measure.js";
import type { StageProfile } from "../src/stage-profile.js";

function run(label: string, round: number, cpu: number, writer = 0): Measurement {
  return {
    label,
    connections: 50,
    round,
    load: { requests: 1000, seconds: 1, requestsPerSecond: 1000, p50Ms: 1, p99Ms: 2, non2xx: 0, socketErrors: 0 },
    cpuMicrosPerRequest: cpu,
    threadCpuMicrosPerRequest: {
      "main thread": cpu - writer - 2,
      "SQLite writer thread": writer,
      "V8 helper threads (GC, compiler)": 2,
      "other threads": 0,
    },
    rssBytes: 100,
    peakRssBytes: 100,
  };
}

const labels = { server: "server", tunedPeer: "peer", bareExpress: "express", bareNodeHttp: "node:http" };
// Two rounds each; the medians are the middle of each pair: server 60 (writer 5, main 53), peer 50, node:http 25, Express 45.
const measurements = [0, 1].flatMap((round) => [
  run("server", round, round === 0 ? 58 : 62, 5),
  run("peer", round, round === 0 ? 49 : 51),
  run("node:http", round, 25),
  run("express", round, 45),
]);
// The main thread's busy time: Express 10%, metrics 6%, headers 4% (20% the peer lacks), the log 10%.
const stages: StageProfile = {
  connections: 50,
  requests: 1000,
  cpuMicrosPerRequest: 60,
  threadCpuMicrosPerRequest: {
    "main thread": 53,
    "SQLite writer thread": 5,
    "V8 helper threads (GC, compiler)": 2,
    "other threads": 0,
  },
  mainStages: new Map([
    ["HTTP: Express and its router", 10],
    ["metrics", 6],
    ["headers (helmet, CORS)", 4],
    ["log", 10],
    ["HTTP: node:http and the socket", 70],
  ]),
  workers: [],
};

describe("the floor under the CPU target", () => {
  it("leaves the server's own work 0.8x the peer less node:http and the commit, and says what share of the gap each floor explains", () => {
    const markdown = floorMarkdown(measurements, labels, stages).join("\n");
    // Target 0.8 x 50 = 40; left 40 − 25 − 5 = 10; spent now 60 − 25 − 5 = 30; the peer above node:http 25.
    expect(markdown).toContain("| the CPU target: 0.8x (5) | 40.0 |");
    expect(markdown).toContain("| **left for the rest of (1)'s work: target − (3) − writer** | **10.0** |");
    expect(markdown).toContain("| what (1) spends on it now: (1) − (3) − writer | 30.0 |");
    expect(markdown).toContain("| what (5) spends above (3), its SQLite commit included | 25.0 |");
    expect(markdown).toContain("| the gap: (1) − target | 20.0 |");
    // 20% of a 53 us main thread is 10.6 us, 53% of the 20 us gap.
    expect(markdown).toMatch(/\| of the gap, the stages \(5\) lacks [^|]* \| 10\.6 \(53%\) \|/);
    // Against bare Express: 15 us; the writer (5) and the log (10% of 53 = 5.3) explain 10.3 us, 69%.
    expect(markdown).toContain("| (1) − (2) | 15.0 |");
    expect(markdown).toContain("| of it, (1)'s writer thread and log line, which (2) does not have | 10.3 (69%) |");
    expect(markdown).toContain(
      "- At 50 connections the target leaves the rest of (1)'s work 10.0 us: 33% of what that work costs (1) now, and 40% of what (5) spends above node:http, its commit included.",
    );
  });

  it("says nothing is left when node:http and the commit alone are over the target, and leaves the profile rows out without a profile", () => {
    const heavyPlatform = measurements.map((m) => (m.label === "node:http" ? run("node:http", m.round, 38) : m));
    const markdown = floorMarkdown(heavyPlatform, labels, undefined).join("\n");
    expect(markdown).toContain(
      "the target leaves the rest of (1)'s work nothing: node:http and the commit alone are over the target.",
    );
    expect(markdown).not.toContain("of the gap, the stages (5) lacks");
  });

  it("with (6), says what share of the gap Express as the server runs it explains, and what it leaves the server's own stages", () => {
    const withFramework = [...measurements, ...[0, 1].map((round) => run("express as served", round, 31))];
    const markdown = floorMarkdown(withFramework, { ...labels, expressAsServed: "express as served" }, stages).join(
      "\n",
    );
    // (6) 31 us is 6 us above node:http's 25: 30% of the 20 us gap. The target, 40, less (6) and the 5 us writer leaves 4 us;
    // the server's own stages cost 60 − 31 − 5 = 24 now.
    expect(markdown).toContain("| (6) Express as (1) runs it, a fixed answer, all threads | 31.0 |");
    expect(markdown).toContain("| of the gap, Express as (1) runs it: (6) − (3) | 6.0 (30%) |");
    expect(markdown).toContain("| left for (1)'s own stages once Express is paid: target − (6) − writer | 4.0 |");
    expect(markdown).toContain("| what those stages cost (1) now: (1) − (6) − writer | 24.0 |");
    expect(markdown).toContain(
      "  Express as (1) runs it takes 6.0 us of that, leaving 4.0 us for auth, validation, the store's hand-off, the log line, metrics and security headers, which cost (1) 24.0 us now (17%).",
    );
    expect(floorMarkdown(measurements, labels, stages).join("\n")).not.toContain("(6) Express as (1) runs it");
  });

  it("says when Express as the server runs it and the commit are over the target on their own", () => {
    const heavyFramework = [...measurements, ...[0, 1].map((round) => run("express as served", round, 37))];
    const markdown = floorMarkdown(heavyFramework, { ...labels, expressAsServed: "express as served" }, stages).join(
      "\n",
    );
    expect(markdown).toContain(
      "  Express as (1) runs it takes 12.0 us of that: with the commit it is over the target before (1) does any work of its own.",
    );
  });

  it("says so where the server is within the target", () => {
    const cheapServer = measurements.map((m) => (m.label === "server" ? run("server", m.round, 38, 5) : m));
    expect(floorMarkdown(cheapServer, labels, stages).join("\n")).toContain(
      "- At 50 connections (1) is within the CPU target.",
    );
  });
});

describe("the table of CPU by thread", () => {
  it("gives each server's CPU per request by thread, medians over rounds", () => {
    const table = threadCpuTable(measurements).join("\n");
    expect(table).toContain(
      "| Connections | Server | main thread | SQLite writer thread | V8 helper threads (GC, compiler) | other threads | all |",
    );
    expect(table).toContain("| 50 | server | 53.0 | 5.0 | 2.0 | 0.0 | 60.0 |");
  });
});
