/**
 * An error as one line for an operator (a command's stderr, a log line's reason): its message, or, for a failure
 * without one (connecting to a name with several addresses fails with an empty AggregateError), the first inner
 * error's, or its code.
 */
export function oneLine(error: unknown): string {
  let current: unknown = error;
  if (current instanceof AggregateError && current.message === "" && current.errors[0] !== undefined)
    current = current.errors[0];
  if (!(current instanceof Error)) return String(current).replace(/\s*\n\s*/g, " ");
  const code = (current as { code?: unknown }).code;
  const text = current.message || (typeof code === "string" ? code : current.name);
  return text.replace(/\s*\n\s*/g, " ");
}
