import { getReleasePlan } from "@changesets/get-release-plan";
import type { PlannedRelease } from "./release-rule.js";

/**
 * What `changeset version` would release now, per package: read from the pending changesets and
 * .changeset/config.json by changesets itself, so fixed groups (contract and client) count as it counts them.
 */
export async function plannedReleases(repositoryRoot: string): Promise<Record<string, PlannedRelease>> {
  const plan = await getReleasePlan(repositoryRoot);
  return Object.fromEntries(plan.releases.map((release) => [release.name, release.type]));
}
