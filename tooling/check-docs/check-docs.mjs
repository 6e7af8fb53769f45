// `pnpm lint:docs`: the lists in the docs that mirror code, held against the code. Each check reads the code's own
// list (config.ts's schema, the bench's modes, the server's imports) and the doc's, and names every difference.
// Plain Node, no build: it reads source text, so it runs before anything is compiled.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const read = (path) => readFileSync(join(root, path), "utf8");
const problems = [];
const differ = (source, missing, extra, where) => {
  for (const name of missing) problems.push(`${where}: ${name} is missing (it is in ${source})`);
  for (const name of extra) problems.push(`${where}: ${name} is listed but is not in ${source}`);
};
const minus = (a, b) => [...a].filter((item) => !b.has(item)).sort();

// The rows of the first markdown table under a heading (or in the file): each row's cells, without the header row.
function tableRows(markdown, heading) {
  const lines = markdown.split("\n");
  let line = heading === undefined ? 0 : lines.indexOf(heading) + 1;
  if (heading !== undefined && line === 0) throw new Error(`heading "${heading}" not found`);
  while (line < lines.length && !lines[line].startsWith("|")) {
    if (heading !== undefined && lines[line].startsWith("#")) throw new Error(`no table under "${heading}"`);
    line++;
  }
  const rows = [];
  for (; line < lines.length && lines[line].startsWith("|"); line++) {
    if (!/^\|\s*-/.test(lines[line]))
      rows.push(
        lines[line]
          .split("|")
          .slice(1, -1)
          .map((cell) => cell.trim()),
      );
  }
  return rows.slice(1);
}

const backticked = (text) => [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]);

// 1. Every variable the server reads (config.ts's EnvSchema) has a row in docs/configuration.md, and every row
//    names one it reads; OpenTelemetry's own variables are documented in docs/tracing.md instead.
{
  const config = read("apps/server/src/config.ts");
  const schema = config.slice(config.indexOf("const EnvSchema = z.object({"));
  const body = schema.slice(0, schema.indexOf("\n});"));
  const schemaNames = new Set([...body.matchAll(/^ {2}([A-Z][A-Z0-9_]*):/gm)].map((match) => match[1]));
  const server = new Set([...schemaNames].filter((name) => !name.startsWith("OTEL_")));
  const otel = new Set([...schemaNames].filter((name) => name.startsWith("OTEL_")));
  const variableName = /^[A-Z][A-Z0-9_]*(?==|$)/;
  const namesIn = (rows) =>
    new Set(
      rows.flatMap((cells) =>
        backticked(cells[0] ?? "")
          .map((text) => text.match(variableName)?.[0])
          .filter(Boolean),
      ),
    );
  const table = namesIn(tableRows(read("docs/configuration.md")));
  differ("apps/server/src/config.ts's EnvSchema", minus(server, table), minus(table, server), "docs/configuration.md");
  const tracing = namesIn(tableRows(read("docs/tracing.md"), "## Variables"));
  differ("apps/server/src/config.ts's EnvSchema", minus(otel, tracing), [], "docs/tracing.md");
}

// 2. The bench's modes (the `mode` union in bench/src/options.ts) are the ones docs/layout.md lists under src/modes/
//    and bench/README.md runs, and the ones run.ts's usage line names.
{
  const options = read("bench/src/options.ts");
  const union = options.match(/^\s*mode: ((?:"[a-z-]+"(?: \| )?)+);/m);
  if (!union) throw new Error("bench/src/options.ts: no `mode:` union");
  const modes = new Set([...union[1].matchAll(/"([a-z-]+)"/g)].map((match) => match[1]));

  const layout = read("docs/layout.md").split("\n");
  const first = layout.findIndex((line) => /^ {2}src\/modes\/\s/.test(line));
  if (first === -1) throw new Error("docs/layout.md: no src/modes/ entry");
  let text = layout[first].replace(/^ {2}src\/modes\/\s+/, "");
  for (let line = first + 1; /^ {24}\S/.test(layout[line] ?? ""); line++) text += ` ${layout[line].trim()}`;
  // "compare (default; ...), quick (CI), ...": each item's first word, once what the parentheses say is dropped.
  let flat = text;
  while (/\([^()]*\)/.test(flat)) flat = flat.replace(/\([^()]*\)/g, "");
  const listed = new Set(
    flat
      .split(",")
      .map((item) => item.trim().split(/\s+/)[0])
      .filter(Boolean),
  );
  differ("bench/src/options.ts's modes", minus(modes, listed), minus(listed, modes), "docs/layout.md src/modes/");

  const readme = new Set(
    [...read("bench/README.md").matchAll(/^pnpm bench -- --mode ([a-z-]+)/gm)].map((match) => match[1]),
  );
  // compare is what `pnpm bench` runs with no --mode; the README shows it so.
  differ(
    "bench/src/options.ts's modes",
    minus(modes, new Set([...readme, "compare"])),
    minus(readme, modes),
    "bench/README.md",
  );

  const usage = read("bench/src/run.ts").match(/--mode ([a-z|-]+)\]/);
  const named = new Set(usage ? usage[1].split("|") : []);
  differ("bench/src/options.ts's modes", minus(modes, named), minus(named, modes), "bench/src/run.ts's usage line");
}

// 3. docs/architecture.md's layers table holds every folder and loose file of apps/server/src, and no import runs
//    from a lower layer to a higher one, unless the line before it says why (`// upward: <reason>`).
{
  const src = "apps/server/src";
  const rows = tableRows(read("docs/architecture.md"), "## Layers: no import runs upward");
  const layerOf = new Map();
  for (const [layer, places] of rows)
    for (const place of backticked(places)) layerOf.set(place.replace(/\/$/, ""), Number(layer));
  const entries = readdirSync(join(root, src), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() || (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")))
    .map((entry) => entry.name);
  differ(
    "apps/server/src",
    minus(new Set(entries), new Set(layerOf.keys())),
    minus(new Set(layerOf.keys()), new Set(entries)),
    "docs/architecture.md's layers table",
  );

  const files = readdirSync(join(root, src), { recursive: true })
    .map(String)
    .filter((path) => path.endsWith(".ts") && !path.endsWith(".d.ts"));
  const placeOf = (path) => path.split("/")[0];
  for (const file of files) {
    const lines = read(`${src}/${file}`).split("\n");
    lines.forEach((line, index) => {
      for (const match of line.matchAll(/(?:from |import\()"(\.{1,2}\/[^"]+)"/g)) {
        const target = relative(join(root, src), resolve(join(root, src, dirname(file)), match[1]));
        const [from, to] = [layerOf.get(placeOf(file)), layerOf.get(placeOf(target))];
        if (from === undefined || to === undefined || from >= to) continue;
        // The comment right above the import, over as many lines as it takes, gives the reason.
        let above = index - 1;
        while (above > 0 && /^\s*\/\/ /.test(lines[above - 1]) && !/\/\/ upward: /.test(lines[above])) above--;
        if (/^\s*\/\/ upward: \S/.test(lines[above] ?? "")) continue;
        problems.push(
          `${src}/${file}:${index + 1} imports ${match[1]}: layer ${from} -> ${to} runs upward ` +
            "(docs/architecture.md#layers-no-import-runs-upward)",
        );
      }
    });
  }
}

if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  console.error(`lint:docs: ${problems.length} difference(s) between the docs and the code`);
  process.exit(1);
}
