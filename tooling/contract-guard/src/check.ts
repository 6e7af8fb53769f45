import { copyFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import { generatedDocument, REGENERATE_COMMAND } from "./generated-document.js";
import { deepEqual } from "./json-document.js";
import { diffOpenApi } from "./openapi-diff.js";
import { plannedReleases } from "./pending-release.js";
import { judgeRelease } from "./release-rule.js";

/** The committed document generated from the contract: what reviewers read and the contract package ships. */
export const CURRENT_DOCUMENT = "packages/contract/openapi.json";
/** The document as of the last release, refreshed by `pnpm version-packages`. */
export const RELEASED_DOCUMENT = "packages/contract/openapi.released.json";

const readJson = async (path: string) => JSON.parse(await readFile(path, "utf8")) as Record<string, unknown>;

/**
 * Refuses a committed document that is not what the contract generates now, saying how to regenerate it; then
 * compares the document with the released one and judges the pending changesets. The report's lines.
 */
export async function checkContract(repositoryRoot: string): Promise<{ ok: boolean; lines: string[] }> {
  const committed = await readJson(join(repositoryRoot, CURRENT_DOCUMENT));
  const generated = await generatedDocument(repositoryRoot);
  if (!deepEqual(committed, generated)) return staleReport(committed, generated);
  const changes = diffOpenApi(await readJson(join(repositoryRoot, RELEASED_DOCUMENT)), committed);
  const verdict = judgeRelease(changes, await plannedReleases(repositoryRoot));
  const lines = changes.length > 0 ? [`Changes to the API since the last release (${RELEASED_DOCUMENT}):`] : [];
  for (const change of changes) lines.push(`  ${change.impact}: ${change.text}`);
  lines.push(`${verdict.ok ? "contract:check passed" : "contract:check failed"}: ${verdict.reason}`);
  return { ok: verdict.ok, lines };
}

// Checking, not regenerating: the committed file is what reviewers see and what the package ships, so a check
// that rewrote it would pass a commit whose document is still stale.
function staleReport(committed: Record<string, unknown>, generated: Record<string, unknown>): { ok: false; lines: string[] } {
  const unseen = diffOpenApi(committed, generated);
  const lines = unseen.length > 0 ? [`The contract generates changes that ${CURRENT_DOCUMENT} does not show yet:`] : [];
  for (const change of unseen) lines.push(`  ${change.impact}: ${change.text}`);
  lines.push(
    `contract:check failed: ${CURRENT_DOCUMENT} is stale (not what the contract generates now). Regenerate it with \`${REGENERATE_COMMAND}\`, commit it, and run \`pnpm contract:check\` again.`,
  );
  return { ok: false, lines };
}

/** Makes the current document the released one: run by `pnpm version-packages` after `changeset version`. */
export async function releaseBaseline(repositoryRoot: string): Promise<void> {
  await copyFile(join(repositoryRoot, CURRENT_DOCUMENT), join(repositoryRoot, RELEASED_DOCUMENT));
}
