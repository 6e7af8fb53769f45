import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Extractor, ExtractorConfig, ExtractorLogLevel } from "@microsoft/api-extractor";

/** The published packages whose TypeScript API is reported and guarded, by folder. */
export const API_PACKAGES = ["packages/contract", "packages/client"] as const;
/** Where a package's committed reports live, beside its package.json; `released/` holds the last release's. */
export const REPORT_FOLDER = "api";
export const RELEASED_FOLDER = "api/released";
/** The command that rewrites the committed reports from the packages' builds. */
export const API_REPORT_COMMAND = "pnpm contract:api-report";

/** One entry point of a published package: its import path and the declaration file its `types` condition names. */
export interface ApiEntry {
  /** The package's name, e.g. @plant-store/client. */
  packageName: string;
  /** The package's folder, relative to the repository's root. */
  packageFolder: string;
  /** The import path, e.g. "." or "./testing". */
  importPath: string;
  /** The ESM declaration file, relative to the package, e.g. dist/testing.d.ts. */
  declarationFile: string;
  /** The report's file name: the declaration file's base name, e.g. testing.api.md. */
  reportFile: string;
}

/**
 * Every entry point a consumer can import from the package, read from its `exports` map: each distinct ESM
 * declaration file (`.d.ts`) a `types` condition names, under any condition (node, browser, ...).
 */
export async function apiEntries(repositoryRoot: string, packageFolder: string): Promise<ApiEntry[]> {
  const manifest = JSON.parse(await readFile(join(repositoryRoot, packageFolder, "package.json"), "utf8")) as {
    name: string;
    exports?: Record<string, unknown>;
  };
  const entries = new Map<string, ApiEntry>();
  const visit = (importPath: string, target: unknown, condition: string | undefined) => {
    if (typeof target === "string") {
      if (condition !== "types" || !target.endsWith(".d.ts")) return;
      const declarationFile = target.replace(/^\.\//, "");
      if (entries.has(declarationFile)) return;
      const base =
        declarationFile
          .split("/")
          .at(-1)
          ?.replace(/\.d\.ts$/, "") ?? declarationFile;
      entries.set(declarationFile, {
        packageName: manifest.name,
        packageFolder,
        importPath,
        declarationFile,
        reportFile: `${base}.api.md`,
      });
    } else if (target !== null && typeof target === "object") {
      for (const [key, value] of Object.entries(target)) visit(importPath, value, key);
    }
  };
  for (const [importPath, target] of Object.entries(manifest.exports ?? {})) visit(importPath, target, undefined);
  return [...entries.values()];
}

/**
 * The API Extractor report of one entry point, generated from its built declaration file: every exported
 * declaration's signature, in a stable Markdown form that is committed beside the package.
 */
export async function generateApiReport(repositoryRoot: string, entry: ApiEntry): Promise<string> {
  const packageFolder = join(repositoryRoot, entry.packageFolder);
  const declarationFile = join(packageFolder, entry.declarationFile);
  const reportName = entry.reportFile.replace(/\.api\.md$/, "");
  const out = await mkdtemp(join(tmpdir(), "api-report-"));
  try {
    const config = ExtractorConfig.prepare({
      configObject: {
        projectFolder: packageFolder,
        mainEntryPointFilePath: declarationFile,
        compiler: {
          overrideTsconfig: {
            compilerOptions: {
              strict: true,
              module: "nodenext",
              moduleResolution: "nodenext",
              target: "es2022",
              skipLibCheck: true,
            },
            include: [declarationFile],
          },
        },
        newlineKind: "lf",
        apiReport: { enabled: true, reportFileName: reportName, reportFolder: out, reportTempFolder: out },
        docModel: { enabled: false },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
      },
      configObjectFullPath: join(packageFolder, "api-extractor.json"),
      packageJsonFullPath: join(packageFolder, "package.json"),
    });
    const problems: string[] = [];
    const result = Extractor.invoke(config, {
      localBuild: true,
      messageCallback: (message) => {
        // The report flags missing release tags and TSDoc style inline; only a compiler error stops it.
        if (message.logLevel === ExtractorLogLevel.Error) problems.push(message.text);
        message.handled = true;
      },
    });
    if (!result.succeeded || problems.length > 0) {
      throw new Error(
        `API Extractor could not report ${entry.packageName} ${entry.importPath} (${entry.declarationFile}): ${problems[0] ?? "failed"}`,
      );
    }
    return await readFile(join(out, `${reportName}.api.md`), "utf8");
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}
