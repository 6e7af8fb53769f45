import { describe, expect, it } from "vitest";
import { statedDeadline } from "../src/connection/request-deadline.js";
import { ServicePace } from "../src/connection/service-pace.js";

describe("the deadline headers", () => {
  it("reads Envoy's and the client's header, and takes the shorter", () => {
    expect(statedDeadline({})).toEqual({ timeLeftMs: undefined });
    expect(statedDeadline({ "x-envoy-expected-rq-timeout-ms": "15000" })).toEqual({ timeLeftMs: 15_000 });
    expect(statedDeadline({ "x-request-timeout-ms": "250" })).toEqual({ timeLeftMs: 250 });
    expect(
      statedDeadline({ "x-envoy-expected-rq-timeout-ms": "15000", "x-request-timeout-ms": "250" }).timeLeftMs,
    ).toBe(250);
  });

  it("ignores a value that is not a whole number of milliseconds from 1 to 999999999, and names it", () => {
    for (const value of ["", "0", "-5", "+5", "1.5", "5ms", " 5", "1e3", "0x10", "1000000000", "5, 6", "٥"])
      expect(statedDeadline({ "x-request-timeout-ms": value })).toEqual({
        timeLeftMs: undefined,
        invalid: { header: "x-request-timeout-ms", value },
      });
    // A valid header still counts beside an invalid one.
    expect(statedDeadline({ "x-envoy-expected-rq-timeout-ms": "abc", "x-request-timeout-ms": "40" })).toEqual({
      timeLeftMs: 40,
      invalid: { header: "x-envoy-expected-rq-timeout-ms", value: "abc" },
    });
  });
});

describe("the service pace (what recent answers took, summed up every half second)", () => {
  it("knows nothing until a window of answers has passed", () => {
    const pace = new ServicePace(() => 0);
    pace.answered(40, 10);
    expect(pace.recent(499)).toEqual({ typicalMs: 0, slowMs: 0, loopDelayMs: 0 });
  });

  it("gives the median and 95th percentile of the last window's answers, and the event loop's delay over it", () => {
    let delayMs = 25;
    const pace = new ServicePace(() => delayMs);
    for (let i = 1; i <= 100; i++) pace.answered(i, i);
    expect(pace.recent(501)).toEqual({ typicalMs: 51, slowMs: 96, loopDelayMs: 25 });
    // Until the next window ends, the same summary.
    delayMs = 99;
    pace.answered(1_000, 600);
    expect(pace.recent(999)).toEqual({ typicalMs: 51, slowMs: 96, loopDelayMs: 25 });
    expect(pace.recent(1_001)).toEqual({ typicalMs: 1_000, slowMs: 1_000, loopDelayMs: 99 });
  });

  it("forgets a window once a whole one has passed with nothing summed up: a server that went idle is fast again", () => {
    const pace = new ServicePace(() => 0);
    pace.answered(20_000, 100);
    expect(pace.recent(600).typicalMs).toBe(20_000);
    expect(pace.recent(1_600).typicalMs).toBe(0);
  });

  it("keeps the latest 4,096 answers of a window", () => {
    const pace = new ServicePace(() => 0);
    for (let i = 0; i < 4_096; i++) pace.answered(1_000, 1);
    for (let i = 0; i < 4_096; i++) pace.answered(5, 2);
    expect(pace.recent(501)).toMatchObject({ typicalMs: 5, slowMs: 5 });
  });
});
