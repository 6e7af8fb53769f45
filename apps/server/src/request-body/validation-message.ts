import type { ZodError, ZodIssue } from "zod";

// The body parser turns integer literals into bigint so that int64 ids stay exact; to an API user
// they are all numbers, so messages speak of numbers and integers, not JavaScript types.
const typeNames: Record<string, string> = { bigint: "integer", number: "number" };

function describeIssue(issue: ZodIssue): string {
  if (issue.code === "invalid_type") {
    const expected = typeNames[issue.expected] ?? issue.expected;
    const received = issue.received === "bigint" ? "number" : issue.received;
    return received === "undefined" ? "is required" : `must be ${article(expected)} ${expected}, got ${received}`;
  }
  return issue.message;
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? "an" : "a";
}

/** One line naming each invalid field of the body, e.g. `id: must be an integer, got string`. */
export function describeValidationError(error: ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "body"}: ${describeIssue(issue)}`)
    .join("; ");
}
