import { readFileSync } from "node:fs";
import { ErrorCode, type ErrorStatus, errorResponses, plantStoreContract } from "@plant-store/contract";
import { describe, expect, it } from "vitest";

const README = new URL("../README.md", import.meta.url);

/** The README's table of POST /plants responses, rendered from the contract's route and error table. */
function statusTable(): string {
  const statuses = Object.keys(plantStoreContract.plants.create.responses).map(Number);
  const rows = statuses.map((status) => {
    if (!Object.hasOwn(errorResponses, status)) return `| \`${status}\` | the stored \`Plant\` | |`;
    const { codes, description } = errorResponses[status as ErrorStatus];
    return `| \`${status}\` | ${codes.map((name) => `\`${name}\` (${ErrorCode[name]})`).join(", ")} | ${description} |`;
  });
  return ["| Status | Body | When |", "|---|---|---|", ...rows].join("\n");
}

describe("the client's README", () => {
  it("lists exactly the statuses and codes the contract declares for POST /plants", () => {
    const readme = readFileSync(README, "utf8");
    const section = /<!-- statuses:start[^>]*-->\n([\s\S]*?)\n<!-- statuses:end -->/.exec(readme)?.[1];
    // On a contract change, paste the table this test prints in place of the old one.
    expect(section).toBe(statusTable());
  });
});
