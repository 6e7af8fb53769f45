/** A check of `pnpm image:test` that did not hold. */
export class CheckFailed extends Error {}

/** Prints `ok <what>`, or throws CheckFailed with `not ok <what>` and the detail. */
export function check(condition: unknown, what: string, detail = ""): void {
  if (!condition) throw new CheckFailed(`not ok  ${what}${detail ? `\n${detail}` : ""}`);
  console.log(`ok      ${what}`);
}
