import { createRequire } from "node:module";
import { dirname } from "node:path";
import { buildOpenApiDocument } from "@plant-store/contract/openapi";
import { Router } from "express";

// Resolve the package folder without importing its index, which would load the 1.7 MB browser bundle into Node.
const swaggerUiDir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Plant Store API reference</title>
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
  <link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

// A file rather than an inline script, so the Content-Security-Policy can stay at script-src 'self'.
const INIT = `window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true });\n`;

/**
 * GET /openapi.json: the document generated from the contract, with `serverUrl` (PUBLIC_URL) as its server
 * when set. GET /docs: Swagger UI over it, served from the installed swagger-ui-dist package (no CDN), so it
 * works offline and under a strict CSP.
 */
export function apiDocsRoutes(serverUrl?: string): Router {
  const document = buildOpenApiDocument({ serverUrl });
  const router = Router();
  router.get("/openapi.json", (_req, res) => {
    res.json(document);
  });
  router.get("/docs", (_req, res) => {
    res.type("html").send(PAGE);
  });
  router.get("/docs/init.js", (_req, res) => {
    res.type("js").send(INIT);
  });
  for (const asset of ["swagger-ui.css", "swagger-ui-bundle.js", "favicon-32x32.png"]) {
    router.get(`/docs/${asset}`, (_req, res, next) => {
      // root keeps the dot-file check to the asset name: the package itself lives under node_modules/.pnpm.
      res.sendFile(asset, { root: swaggerUiDir, maxAge: "1h" }, (error) => error && next(error));
    });
  }
  return router;
}
