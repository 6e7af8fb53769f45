// Rewrites openapi.json from the built contract (run through `pnpm generate:openapi`, which builds first).
import { writeFileSync } from "node:fs";
import { buildOpenApiDocument } from "../dist/openapi.js";

writeFileSync(new URL("../openapi.json", import.meta.url), `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
