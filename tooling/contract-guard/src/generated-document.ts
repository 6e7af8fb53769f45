import { access } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { JsonObject } from "./json-document.js";

/** The contract's build output that holds the document generator (`pnpm contract:check` builds it first). */
export const GENERATOR = "packages/contract/dist/openapi.js";
/** The command that rewrites the committed document from the contract. */
export const REGENERATE_COMMAND = "pnpm --filter @plant-store/contract generate:openapi";

/**
 * The OpenAPI document the contract generates now, from its build in `repositoryRoot`: what the committed
 * openapi.json must equal. JSON round-tripped, as generate:openapi writes it.
 */
export async function generatedDocument(repositoryRoot: string): Promise<JsonObject> {
  const generator = join(repositoryRoot, GENERATOR);
  try {
    await access(generator);
  } catch {
    throw new Error(`${GENERATOR} is missing: build the contract first (pnpm contract:check does).`);
  }
  const { buildOpenApiDocument } = (await import(pathToFileURL(generator).href)) as {
    buildOpenApiDocument: () => unknown;
  };
  return JSON.parse(JSON.stringify(buildOpenApiDocument())) as JsonObject;
}
