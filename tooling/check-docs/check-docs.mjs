// `pnpm lint:docs`: the docs held against the code and to their size. Each check reads the code's own list (config.ts's
// schema, the bench's modes, the server's imports, the files, the bench's constants) and the docs', and names every
// difference; then docs/ is held to its line budget. Plain Node, no build: it reads source text, so it runs before
// anything is compiled.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
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

// The Markdown files the checks below read: docs/ and every README (the root's and each workspace's).
const docPages = readdirSync(join(root, "docs"))
  .filter((name) => name.endsWith(".md"))
  .map((name) => `docs/${name}`);
// The workspaces: pnpm-workspace.yaml's `packages:` list, its globs (`apps/*`) expanded.
const workspaces = (read("pnpm-workspace.yaml").match(/^packages:\n((?:\s+- .+\n)+)/m)?.[1] ?? "")
  .split("\n")
  .flatMap((line) => {
    const glob = line.match(/^\s+- "?([^"\s]+)"?$/)?.[1];
    if (glob === undefined) return [];
    if (!glob.endsWith("/*")) return [glob];
    const parent = glob.slice(0, -2);
    return readdirSync(join(root, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${parent}/${entry.name}`);
  })
  .filter((workspace) => existsSync(join(root, workspace, "package.json")));
const readmes = ["README.md", ...workspaces.map((workspace) => `${workspace}/README.md`)].filter((path) =>
  existsSync(join(root, path)),
);

// 4. Every file the docs name, backticked (`apps/server/src/config.ts`, `src/floor.ts`) or linked, exists. A path is
//    looked for from the repository's root, from the page's folder, and from each workspace and its src/ (docs write
//    `src/tracing/…` for apps/server and `runtime-internals/…` for its src/); a bare file name (`open-store.ts`) is
//    looked for anywhere. Build output (dist/), placeholders (`<dir>`, `*`, `…`) and absolute paths are not files of
//    the repository and are left alone.
{
  const sourceFile = /^(?:[\w@.-]+\/)*[\w.-]+\.(?:ts|mts|cts|mjs|cjs|js|json|ya?ml|lua|md|sh)$/;
  // Absolute paths, package names, import specifiers (`./x.js`) and build output are not the repository's files.
  const skipped = (path) => /^(?:\/|@|\.{1,2}\/)/.test(path) || /(?:^|\/)dist\//.test(path);
  // A bare name is a source file only with a source extension: `res.json` is Express's, `package.json` is everywhere.
  const bareSourceFile = /^[\w.-]+\.(?:ts|mts|cts|mjs|cjs|lua|sh)$/;
  const bases = ["", ...workspaces.flatMap((workspace) => [workspace, `${workspace}/src`])];
  const namesInRepo = new Set();
  const walk = (folder) => {
    for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
      if (/^(?:node_modules|dist|\.git|\.cache|\.turbo|coverage|test-artifacts)$/.test(entry.name)) continue;
      if (entry.isDirectory()) walk(join(folder, entry.name));
      else namesInRepo.add(entry.name);
    }
  };
  walk("");
  for (const page of [...docPages, ...readmes]) {
    const text = read(page).replace(/^```[^\n]*\n[\s\S]*?^```$/gm, "");
    const named = [
      ...backticked(text),
      ...[...text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
        .map((match) => match[1])
        .filter((target) => !/^[a-z]+:/.test(target))
        .map((target) => relative(root, resolve(root, dirname(page), target))),
    ];
    for (const path of new Set(named)) {
      if (!sourceFile.test(path) || skipped(path) || !(path.includes("/") || bareSourceFile.test(path))) continue;
      const found = path.includes("/")
        ? [dirname(page), ...bases].some((base) => existsSync(join(root, base, path)))
        : namesInRepo.has(basename(path));
      if (!found) problems.push(`${page}: names ${path}, which does not exist`);
    }
  }
}

// 5. The bench's constants the docs quote. Each entry names a top-level `const NAME = <number>;` of bench/src and
//    the phrases that quote it, `{}` standing for the value as the docs write it (a number, or a fraction in words:
//    "a quarter-core cap"), times `unit` (10_000 µs are "10 ms": unit 1000). Every phrase found in docs/ or a README
//    must give the constant's value; an entry none of whose phrases any page uses is stale, and fails too.
{
  const quoted = [
    {
      file: "bench/src/modes/overload/mode.ts",
      name: "CAP_SHARE",
      phrases: ["under a {}-core cap", "{} of a core in 10 ms periods", "{} core in 10 ms periods"],
    },
    {
      file: "bench/src/modes/overload/mode.ts",
      name: "CAP_PERIOD_US",
      unit: 1000,
      phrases: ["of a core in {} ms periods", "core in {} ms periods"],
    },
    {
      file: "bench/src/modes/overload/pair.ts",
      name: "CAPACITY_CONNECTIONS",
      phrases: ["capacities at {} connections", "C is the closed loop's 2xx/s at {} connections"],
    },
    {
      file: "bench/src/modes/overload/open-loops.ts",
      name: "DEADLINE_MS",
      unit: 1000,
      phrases: ["a {} s deadline", "{} s deadlines"],
    },
    { file: "bench/src/open-loop-load.ts", name: "MAX_CONNECTIONS", phrases: ["on up to {} keep-alive connections"] },
    { file: "bench/src/modes/starts.ts", name: "SLOW_START", phrases: ["A start at {}x its server's fastest start"] },
    { file: "bench/src/modes/starts.ts", name: "SLOW_CORE", phrases: ["({}x the lower quartile of the probe's runs"] },
    { file: "bench/src/floor.ts", name: "TARGET_CPU_RATIO", phrases: ["{}x the tuned peer's CPU per request"] },
  ];
  const words = { half: 1 / 2, third: 1 / 3, quarter: 1 / 4, fifth: 1 / 5, tenth: 1 / 10 };
  const valueText = `([0-9][0-9,_]*(?:\\.[0-9]+)?|${Object.keys(words).join("|")})`;
  const numberIn = (text) => words[text] ?? Number(text.replace(/[,_]/g, ""));
  const literally = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pages = [...docPages, ...readmes].map((page) => [page, read(page).replace(/\s+/g, " ")]);
  for (const { file, name, unit = 1, phrases } of quoted) {
    const literal = read(file).match(new RegExp(`^(?:export )?const ${name} = ([0-9][0-9_]*(?:\\.[0-9]+)?);`, "m"));
    if (!literal) {
      problems.push(
        `${file}: no top-level \`const ${name} = <number>;\` (tooling/check-docs/check-docs.mjs quotes it)`,
      );
      continue;
    }
    const value = numberIn(literal[1]);
    let uses = 0;
    for (const phrase of phrases) {
      const pattern = new RegExp(phrase.split("{}").map(literally).join(valueText), "g");
      for (const [page, text] of pages)
        for (const match of text.matchAll(pattern)) {
          uses++;
          if (Math.abs(numberIn(match[1]) * unit - value) > 1e-9 * Math.max(1, value))
            problems.push(
              `${page}: "${match[0]}" quotes ${name}, which is ${literal[1]}` +
                `${unit === 1 ? "" : ` (${value / unit} as the docs write it)`} (${file})`,
            );
        }
    }
    if (uses === 0)
      problems.push(
        `tooling/check-docs/check-docs.mjs: no page quotes ${name} as ${phrases.map((p) => `"${p}"`).join(" or ")} any more: mend the phrases or drop the entry`,
      );
  }
}

// 6. docs/ on one screen: within its line budget, every page under 300 lines, no line over 200 characters. Lines are
//    counted as `wc -l` counts them.
{
  const DOCS_LINE_BUDGET = 1843;
  const PAGE_LINES = 300;
  const LINE_CHARACTERS = 200;
  let total = 0;
  for (const page of docPages) {
    const lines = read(page).split("\n");
    const count = lines.length - 1;
    total += count;
    if (count >= PAGE_LINES) problems.push(`${page}: ${count} lines, where a page has fewer than ${PAGE_LINES}`);
    const long = lines.flatMap((line, index) => (line.length > LINE_CHARACTERS ? [index + 1] : []));
    if (long.length > 0)
      problems.push(`${page}: line${long.length === 1 ? "" : "s"} ${long.join(", ")} over ${LINE_CHARACTERS} characters`);
  }
  if (total > DOCS_LINE_BUDGET)
    problems.push(
      `docs/: ${total} lines, over its budget of ${DOCS_LINE_BUDGET}: say it in fewer, or move detail where its reader looks`,
    );
}

if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  console.error(`lint:docs: ${problems.length} difference(s) between the docs and the code`);
  process.exit(1);
}
