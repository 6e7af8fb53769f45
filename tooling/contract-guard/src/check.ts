import { copyFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import { diffOpenApi } from "./openapi-diff.js";
import { plannedReleases } from "./pending-release.js";
import { judgeRelease } from "./release-rule.js";

/** The document generated from the contract (kept fresh by the contract's tests). */
export const CURRENT_DOCUMENT = "packages/contract/openapi.json";
/** The document as of the last release, refreshed by `pnpm version-packages`. */
export const RELEASED_DOCUMENT = "packages/contract/openapi.released.json";

const readJson = async (path: string) => JSON.parse(await readFile(path, "utf8")) as Record<string, unknown>;

/** Compares the current document with the released one and judges the pending changesets; the report's lines. */
export async function checkContract(repositoryRoot: string): Promise<{ ok: boolean; lines: string[] }> {
  const changes = diffOpenApi(
    await readJson(join(repositoryRoot, RELEASED_DOCUMENT)),
    await readJson(join(repositoryRoot, CURRENT_DOCUMENT)),
  );
  const verdict = judgeRelease(changes, await plannedReleases(repositoryRoot));
  const lines = changes.length > 0 ? [`Changes to the API since the last release (${RELEASED_DOCUMENT}):`] : [];
  for (const change of changes) lines.push(`  ${change.impact}: ${change.text}`);
  lines.push(`${verdict.ok ? "contract:check passed" : "contract:check failed"}: ${verdict.reason}`);
  return { ok: verdict.ok, lines };
}

/** Makes the current document the released one: run by `pnpm version-packages` after `changeset version`. */
export async function releaseBaseline(repositoryRoot: string): Promise<void> {
  await copyFile(join(repositoryRoot, CURRENT_DOCUMENT), join(repositoryRoot, RELEASED_DOCUMENT));
}
