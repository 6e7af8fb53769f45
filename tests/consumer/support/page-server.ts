import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { closeServer, listenOnFreePort } from "@plant-store/test-support/close-server";

/**
 * A static HTTP server on 127.0.0.1 serving an HTML page and one ES module at /plant-store-client.js, plus any
 * other scripts by path (e.g. a service worker): the page's own origin. Anything else is 404.
 */
export async function startPageServer(files: { html: string; modulePath: string; scripts?: Record<string, string> }) {
  const scripts = new Map(Object.entries({ ...files.scripts, "/plant-store-client.js": files.modulePath }));
  const sources = new Map([...scripts].map(([path, file]) => [path, readFileSync(file)]));
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://page").pathname;
    const script = sources.get(path);
    if (path === "/") res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(files.html);
    else if (script) res.writeHead(200, { "content-type": "text/javascript" }).end(script);
    else res.writeHead(404).end();
  });
  const port = await listenOnFreePort(server);
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => closeServer(server),
  };
}
