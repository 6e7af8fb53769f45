import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { diffApiReports } from "./api-diff.js";
import {
  API_PACKAGES,
  API_REPORT_COMMAND,
  apiEntries,
  generateApiReport,
  RELEASED_FOLDER,
  REPORT_FOLDER,
} from "./api-report.js";
import type { Change } from "./change.js";
import { generatedDocument, REGENERATE_COMMAND } from "./generated-document.js";
import { deepEqual } from "./json-document.js";
import { diffOpenApi } from "./openapi-diff.js";
import { plannedReleases } from "./pending-release.js";
import { judgeApiRelease, judgeRelease, type PlannedRelease } from "./release-rule.js";

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
  const reports = await apiReports(repositoryRoot);
  const stale = reports.filter((report) => report.committed !== report.generated);
  if (stale.length > 0) return staleApiReport(stale);
  const planned = await plannedReleases(repositoryRoot);
  const changes = diffOpenApi(await readJson(join(repositoryRoot, RELEASED_DOCUMENT)), committed);
  const verdict = judgeRelease(changes, planned);
  const lines = changes.length > 0 ? [`Changes to the API since the last release (${RELEASED_DOCUMENT}):`] : [];
  for (const change of changes) lines.push(`  ${change.impact}: ${change.text}`);
  lines.push(`${verdict.ok ? "contract:check passed" : "contract:check failed"}: ${verdict.reason}`);
  const api = judgeApiReports(reports, planned);
  return { ok: verdict.ok && api.ok, lines: [...lines, ...api.lines] };
}

/** One entry point's TypeScript API report: as generated from the build now, as committed, as last released. */
interface ApiReport {
  packageName: string;
  subject: string;
  path: string;
  generated: string;
  committed: string | undefined;
  released: string | undefined;
}

const readOptional = (path: string) => readFile(path, "utf8").catch(() => undefined);

async function apiReports(repositoryRoot: string): Promise<ApiReport[]> {
  const reports: ApiReport[] = [];
  for (const folder of API_PACKAGES) {
    const entries = await apiEntries(repositoryRoot, folder).catch(() => []);
    for (const entry of entries) {
      const path = `${folder}/${REPORT_FOLDER}/${entry.reportFile}`;
      reports.push({
        packageName: entry.packageName,
        subject: `${entry.packageName}${entry.importPath === "." ? "" : entry.importPath.slice(1)} (${entry.declarationFile})`,
        path,
        generated: await generateApiReport(repositoryRoot, entry),
        committed: await readOptional(join(repositoryRoot, path)),
        released: await readOptional(join(repositoryRoot, folder, RELEASED_FOLDER, entry.reportFile)),
      });
    }
  }
  return reports;
}

function staleApiReport(stale: ApiReport[]): { ok: false; lines: string[] } {
  const lines = ["The packages' builds export a TypeScript API their committed reports do not show yet:"];
  for (const report of stale) {
    if (report.committed === undefined) lines.push(`  ${report.path}: missing`);
    else
      for (const change of diffApiReports(report.committed, report.generated, report.subject))
        lines.push(`  ${change.impact}: ${change.text}`);
  }
  lines.push(
    `contract:check failed: ${stale.map((report) => report.path).join(", ")} ${stale.length === 1 ? "is" : "are"} stale (not what the build exports now). Regenerate with \`${API_REPORT_COMMAND}\`, commit, and run \`pnpm contract:check\` again.`,
  );
  return { ok: false, lines };
}

/** The TypeScript API's changes since the last release, and whether the pending changesets release each package as they must. */
function judgeApiReports(
  reports: ApiReport[],
  planned: Readonly<Record<string, PlannedRelease>>,
): { ok: boolean; lines: string[] } {
  const byPackage = new Map<string, Change[]>();
  for (const report of reports) {
    // A report with no released counterpart is a new entry point: everything in it is new.
    const changes = diffApiReports(report.released ?? "", report.committed ?? "", report.subject);
    byPackage.set(report.packageName, [...(byPackage.get(report.packageName) ?? []), ...changes]);
  }
  let ok = true;
  const lines: string[] = [];
  for (const [packageName, changes] of byPackage) {
    if (changes.length > 0)
      lines.push(`Changes to the TypeScript API of ${packageName} since the last release (${RELEASED_FOLDER}/):`);
    for (const change of changes) lines.push(`  ${change.impact}: ${change.text}`);
    const verdict = judgeApiRelease(packageName, changes, planned);
    ok &&= verdict.ok;
    lines.push(`${verdict.ok ? "contract:check passed" : "contract:check failed"}: ${verdict.reason}`);
  }
  return { ok, lines };
}

/** Rewrites every package's committed API reports from its build: `pnpm contract:api-report`. */
export async function writeApiReports(repositoryRoot: string): Promise<string[]> {
  const written: string[] = [];
  for (const folder of API_PACKAGES) {
    for (const entry of await apiEntries(repositoryRoot, folder)) {
      const path = `${folder}/${REPORT_FOLDER}/${entry.reportFile}`;
      await mkdir(join(repositoryRoot, folder, REPORT_FOLDER), { recursive: true });
      await writeFile(join(repositoryRoot, path), await generateApiReport(repositoryRoot, entry));
      written.push(path);
    }
  }
  return written;
}

// Checking, not regenerating: the committed file is what reviewers see and what the package ships, so a check
// that rewrote it would pass a commit whose document is still stale.
function staleReport(
  committed: Record<string, unknown>,
  generated: Record<string, unknown>,
): { ok: false; lines: string[] } {
  const unseen = diffOpenApi(committed, generated);
  const lines = unseen.length > 0 ? [`The contract generates changes that ${CURRENT_DOCUMENT} does not show yet:`] : [];
  for (const change of unseen) lines.push(`  ${change.impact}: ${change.text}`);
  lines.push(
    `contract:check failed: ${CURRENT_DOCUMENT} is stale (not what the contract generates now). Regenerate it with \`${REGENERATE_COMMAND}\`, commit it, and run \`pnpm contract:check\` again.`,
  );
  return { ok: false, lines };
}

/** Makes the current document and API reports the released ones: run by `pnpm version-packages` after `changeset version`. */
export async function releaseBaseline(repositoryRoot: string): Promise<void> {
  await copyFile(join(repositoryRoot, CURRENT_DOCUMENT), join(repositoryRoot, RELEASED_DOCUMENT));
  for (const folder of API_PACKAGES) {
    for (const entry of await apiEntries(repositoryRoot, folder).catch(() => [])) {
      await mkdir(join(repositoryRoot, folder, RELEASED_FOLDER), { recursive: true });
      await copyFile(
        join(repositoryRoot, folder, REPORT_FOLDER, entry.reportFile),
        join(repositoryRoot, folder, RELEASED_FOLDER, entry.reportFile),
      );
    }
  }
}
