import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

/** A consumer's tsconfig: strict NodeNext (ESM `.mts` beside CommonJS `.cts`), every library's types checked. */
export const CONSUMER_TSCONFIG = {
  compilerOptions: {
    strict: true,
    module: "NodeNext",
    moduleResolution: "NodeNext",
    target: "ES2022",
    lib: ["ES2022"],
    types: ["node"],
    skipLibCheck: false,
    // TypeScript 6 and 7 want the source root named when there is an output folder.
    rootDir: "src",
    outDir: "dist",
  },
  include: ["src"],
};

// The entries: each passes the installed modules, by `import` or `require`, to the shared consumer code.
const ENTRIES: Record<string, string> = {
  "esm.mts": `import * as ps from "@plant-store/client";
import { runScenarios } from "./scenarios.mjs";

const [baseUrl, flakyUrl, silentUrl, token, idBase] = process.argv.slice(2) as [string, string, string, string, string];
console.log(JSON.stringify(await runScenarios(ps, { baseUrl, flakyUrl, silentUrl, token, idBase: Number(idBase) })));
`,
  "cjs.cts": `import ps = require("@plant-store/client");
import { runScenarios } from "./scenarios.cjs";

const [baseUrl, flakyUrl, silentUrl, token, idBase] = process.argv.slice(2) as [string, string, string, string, string];
runScenarios(ps, { baseUrl, flakyUrl, silentUrl, token, idBase: Number(idBase) }).then((result) => {
  console.log(JSON.stringify(result));
});
`,
  "fake-esm.mts": `import * as ps from "@plant-store/client";
import * as testing from "@plant-store/client/testing";
import { runFakeScenario } from "./fake-scenario.mjs";

console.log(JSON.stringify(await runFakeScenario(ps, testing)));
`,
  "fake-cjs.cts": `import ps = require("@plant-store/client");
import testing = require("@plant-store/client/testing");
import { runFakeScenario } from "./fake-scenario.cjs";

runFakeScenario(ps, testing).then((result) => {
  console.log(JSON.stringify(result));
});
`,
};

/**
 * Writes a consumer project into `dir` (package.json, tsconfig.json, src/): fixtures/scenarios.ts and
 * fixtures/fake-scenario.ts each as ESM and as CommonJS, with an entry for each. Install the tarballs next.
 */
export function writeConsumerProject(dir: string): void {
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(CONSUMER_TSCONFIG));
  const src = join(dir, "src");
  mkdirSync(src, { recursive: true });
  for (const name of ["scenarios", "fake-scenario"]) {
    copyFileSync(fixture(`${name}.ts`), join(src, `${name}.mts`));
    copyFileSync(fixture(`${name}.ts`), join(src, `${name}.cts`));
  }
  for (const [file, code] of Object.entries(ENTRIES)) writeFileSync(join(src, file), code);
}
