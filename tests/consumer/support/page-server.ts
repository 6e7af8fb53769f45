import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** A static HTTP server on 127.0.0.1 serving an HTML page and one ES module: the page's own origin. */
export async function startPageServer(files: { html: string; modulePath: string }) {
  const moduleSource = readFileSync(files.modulePath);
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://page").pathname;
    if (path === "/") res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(files.html);
    else if (path === "/plant-store-client.js") res.writeHead(200, { "content-type": "text/javascript" }).end(moduleSource);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
