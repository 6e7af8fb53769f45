import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// esbuild's record of the browser build (tsup.config.ts writes it next to the bundle): every module it took in.
const metafile = JSON.parse(readFileSync(new URL("../dist/browser/metafile-esm.json", import.meta.url), "utf8")) as {
  outputs: Record<string, { entryPoint?: string; inputs: Record<string, { bytesInOutput: number }> }>;
};
const bundled = Object.entries(Object.values(metafile.outputs).find((output) => output.entryPoint)?.inputs ?? {})
  .filter(([, input]) => input.bytesInOutput > 0)
  .map(([path]) => path);

describe("the client's browser bundle", () => {
  it("holds the contract's main entry", () => {
    expect(bundled.some((path) => path.includes("contract/dist/"))).toBe(true);
  });

  it("leaves out the OpenAPI generator: only zod-openapi's .openapi() metadata extension is in", () => {
    const generatorSide = bundled.filter(
      (path) =>
        /@ts-rest\/open-api|@anatine|openapi3-ts|contract\/dist\/openapi\./.test(path) ||
        (path.includes("/zod-openapi/") && !/\/dist\/extend(Zod|ZodSymbols)?(\.chunk)?\.mjs$/.test(path)),
    );
    expect(generatorSide).toEqual([]);
  });
});
