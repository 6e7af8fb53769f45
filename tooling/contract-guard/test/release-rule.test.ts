import { describe, expect, it } from "vitest";
import type { Change } from "../src/change.js";
import { judgeRelease } from "../src/release-rule.js";

const fieldRemoved: Change = {
  impact: "breaking for existing clients",
  text: "POST /plants 200 response: field `tag` removed",
};
const requestFieldRemoved: Change = {
  impact: "breaking for the server",
  text: "POST /plants request body: field `tag` removed",
};
const routeAdded: Change = { impact: "compatible", text: "GET /plants added" };
const both = (type: "major" | "minor" | "patch") => ({ "@plant-store/contract": type, "@plant-store/client": type });

describe("the changesets a contract change needs", () => {
  it("no change passes, with or without changesets", () => {
    expect(judgeRelease([], {})).toEqual({
      ok: true,
      reason: "The OpenAPI document is unchanged since the last release.",
    });
    expect(judgeRelease([], both("patch")).ok).toBe(true);
  });

  it("a breaking change with a major changeset for the contract and the client passes", () => {
    const verdict = judgeRelease([fieldRemoved, routeAdded], both("major"));
    expect(verdict).toEqual({
      ok: true,
      reason:
        "1 breaking change released as major by the pending changesets: @plant-store/contract (major) and @plant-store/client (major).",
    });
  });

  it("a breaking change with only a minor changeset fails, naming what to add", () => {
    expect(judgeRelease([fieldRemoved], both("minor"))).toEqual({
      ok: false,
      reason:
        "1 breaking change pending without a major changeset for @plant-store/contract and @plant-store/client; the plan releases @plant-store/contract (minor) and @plant-store/client (minor). Add one with `pnpm changeset`.",
    });
  });

  it("a change that breaks the server needs a major release too", () => {
    expect(judgeRelease([requestFieldRemoved], both("minor")).ok).toBe(false);
    expect(judgeRelease([requestFieldRemoved], both("major")).ok).toBe(true);
  });

  it("a breaking change fails when the client would not be released as major with the contract", () => {
    const verdict = judgeRelease([fieldRemoved], { "@plant-store/contract": "major", "@plant-store/client": "minor" });
    expect(verdict.ok).toBe(false);
    expect(verdict.reason).toContain("without a major changeset for @plant-store/client;");
  });

  it("a change with no changeset for the contract fails", () => {
    expect(judgeRelease([routeAdded], { "@plant-store/server": "minor" })).toEqual({
      ok: false,
      reason:
        "The OpenAPI document changed (1 compatible change) with no changeset for @plant-store/contract. Add one with `pnpm changeset`.",
    });
    expect(judgeRelease([fieldRemoved], {}).ok).toBe(false);
  });

  it("a compatible change with a minor changeset passes", () => {
    expect(judgeRelease([routeAdded], both("minor"))).toEqual({
      ok: true,
      reason:
        "1 compatible change released by the pending changesets: @plant-store/contract (minor) and @plant-store/client (minor).",
    });
  });
});
