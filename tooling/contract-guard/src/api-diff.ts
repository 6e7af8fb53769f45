import type { Change } from "./change.js";

/** One declaration of an API report: its name and its lines, without comments, imports or blank lines. */
interface Declaration {
  readonly name: string;
  readonly kind: string;
  readonly lines: readonly string[];
}

const DECLARATION =
  /^(?:export\s+)?(?:declare\s+)?(?:abstract\s+)?(const|let|var|function|type|interface|class|enum|namespace)\s+([\w$]+)/;
// A member a caller may leave out: `name?: T`, `readonly name?: T`, `"quoted-name"?: T`, or an optional method.
const OPTIONAL_MEMBER = /^(?:readonly\s+)?(?:[\w$]+|"[^"]*"|'[^']*')\?(?::|\()/;

/**
 * The declarations of an API Extractor report, by name: the code block's blank-line separated chunks, with
 * comment lines dropped (release tags, warnings) and overloads of one name joined.
 */
function declarations(report: string): Map<string, Declaration> {
  const code = /```ts\r?\n([\s\S]*?)```/.exec(report)?.[1]?.replaceAll("\r\n", "\n") ?? "";
  const found = new Map<string, Declaration>();
  for (const chunk of code.split(/\n\s*\n/)) {
    const lines = chunk
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "" && !line.startsWith("//"));
    if (lines.length === 0 || lines.every((line) => line.startsWith("import "))) continue;
    const match = DECLARATION.exec(lines[0] ?? "");
    // Anything else (an `export { a as b }` list, say) is compared as a whole under its own text.
    const [name, kind] = match ? [match[2] as string, match[1] as string] : [lines.join(" "), "export"];
    const earlier = found.get(name);
    found.set(name, { name, kind, lines: [...(earlier?.lines ?? []), ...lines] });
  }
  return found;
}

/** The lines of `a` that `b` lacks, counting repeats. */
function missingFrom(a: readonly string[], b: readonly string[]): string[] {
  const left = new Map<string, number>();
  for (const line of b) left.set(line, (left.get(line) ?? 0) + 1);
  const missing: string[] = [];
  for (const line of a) {
    const n = left.get(line) ?? 0;
    if (n > 0) left.set(line, n - 1);
    else missing.push(line);
  }
  return missing;
}

const quote = (line: string) => `\`${line.length > 100 ? `${line.slice(0, 97)}...` : line}\``;

/**
 * The differences between the released and the current report of one entry point, classified for consumers
 * compiling against it. Compatible: a new declaration; new members of a `const` (a value consumers only read);
 * new optional members of a type. Everything else is breaking: a declaration removed, any line of one changed
 * or removed (a type narrowed or widened, a parameter added, an optional member made required), and a required
 * member added to a type (consumers may construct it). Like the OpenAPI guard, what it cannot tell is breaking.
 */
export function diffApiReports(released: string, current: string, subject: string): Change[] {
  const before = declarations(released);
  const after = declarations(current);
  const changes: Change[] = [];
  const breaking = (text: string) =>
    changes.push({ impact: "breaking for existing clients", text: `${subject}: ${text}` });
  const compatible = (text: string) => changes.push({ impact: "compatible", text: `${subject}: ${text}` });
  for (const [name, old] of before) {
    const now = after.get(name);
    if (now === undefined) {
      breaking(`${old.kind} \`${name}\` removed`);
      continue;
    }
    const removed = missingFrom(old.lines, now.lines);
    const added = missingFrom(now.lines, old.lines);
    if (removed.length > 0) {
      breaking(
        `${old.kind} \`${name}\` changed: ${quote(removed[0] as string)}${added.length > 0 ? ` became ${quote(added[0] as string)}` : " removed"}`,
      );
    } else if (added.length > 0) {
      const required = old.kind === "const" ? [] : added.filter((line) => !OPTIONAL_MEMBER.test(line));
      if (required.length > 0) breaking(`${old.kind} \`${name}\` gained ${quote(required[0] as string)}`);
      else
        compatible(
          `${old.kind} \`${name}\` gained ${added.length === 1 ? quote(added[0] as string) : `${added.length} members`}`,
        );
    }
  }
  for (const [name, now] of after) {
    if (!before.has(name)) compatible(`${now.kind} \`${name}\` added`);
  }
  return changes;
}
