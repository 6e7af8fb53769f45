import { type Change, isBreaking } from "./change.js";

/** A package's release type in the pending changesets' plan ("none" when no changeset releases it). */
export type PlannedRelease = "major" | "minor" | "patch" | "none";

/** The published packages that must be released with every change to the API. */
export const CONTRACT_PACKAGES = ["@plant-store/contract", "@plant-store/client"] as const;

export interface Verdict {
  readonly ok: boolean;
  /** One line saying why it passes or fails. */
  readonly reason: string;
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;

/**
 * Whether the pending changesets release the API's changes as they must be: a breaking change needs a
 * major release of the contract and of the client (released with it), any change needs a changeset.
 */
export function judgeRelease(changes: readonly Change[], planned: Readonly<Record<string, PlannedRelease>>): Verdict {
  const releases = CONTRACT_PACKAGES.map((name) => `${name} (${planned[name] ?? "none"})`).join(" and ");
  if (changes.length === 0) {
    return { ok: true, reason: "The OpenAPI document is unchanged since the last release." };
  }
  const breaking = changes.filter(isBreaking).length;
  if (breaking > 0) {
    const notMajor = CONTRACT_PACKAGES.filter((name) => planned[name] !== "major");
    if (notMajor.length > 0) {
      return {
        ok: false,
        reason: `${count(breaking, "breaking change")} pending without a major changeset for ${notMajor.join(" and ")}; the plan releases ${releases}. Add one with \`pnpm changeset\`.`,
      };
    }
    return {
      ok: true,
      reason: `${count(breaking, "breaking change")} released as major by the pending changesets: ${releases}.`,
    };
  }
  if ((planned[CONTRACT_PACKAGES[0]] ?? "none") === "none") {
    return {
      ok: false,
      reason: `The OpenAPI document changed (${count(changes.length, "compatible change")}) with no changeset for ${CONTRACT_PACKAGES[0]}. Add one with \`pnpm changeset\`.`,
    };
  }
  return {
    ok: true,
    reason: `${count(changes.length, "compatible change")} released by the pending changesets: ${releases}.`,
  };
}

/**
 * Whether the pending changesets release a package's TypeScript API changes as they must: a breaking change
 * needs a major release of that package, any change a changeset for it.
 */
export function judgeApiRelease(
  packageName: string,
  changes: readonly Change[],
  planned: Readonly<Record<string, PlannedRelease>>,
): Verdict {
  const release = `${packageName} (${planned[packageName] ?? "none"})`;
  if (changes.length === 0)
    return { ok: true, reason: `The TypeScript API of ${packageName} is unchanged since the last release.` };
  const breaking = changes.filter(isBreaking).length;
  if (breaking > 0 && planned[packageName] !== "major") {
    return {
      ok: false,
      reason: `${count(breaking, "breaking change")} to the TypeScript API of ${packageName} pending without a major changeset for it; the plan releases ${release}. Add one with \`pnpm changeset\`.`,
    };
  }
  if ((planned[packageName] ?? "none") === "none") {
    return {
      ok: false,
      reason: `The TypeScript API of ${packageName} changed (${count(changes.length, "compatible change")}) with no changeset for it. Add one with \`pnpm changeset\`.`,
    };
  }
  return {
    ok: true,
    reason: `${count(changes.length, breaking > 0 ? "change" : "compatible change")} to the TypeScript API of ${packageName} released by the pending changesets: ${release}.`,
  };
}
