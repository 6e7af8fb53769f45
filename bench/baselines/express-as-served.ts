// Baseline (6), the framework floor as Plant Store pays it: Express 5 with the built server's own Express
// settings and request-path tricks (objects born with Express's prototypes, res.json's fast path) and its
// lossless body reader, answering a fixed JSON. No auth, validation, store, log line, metrics or security
// headers: what the design card's framework costs the server before it does any of its own work.
import { createServer, type ServerOptions } from "node:http";
import type { AddressInfo } from "node:net";
import express, { type Express, type RequestHandler } from "express";
import { announceListening, FIXED_PLANT } from "./fixed-response.js";

/** A module of the built server (apps/server/dist ships no type declarations, so each import says what it takes). */
const fromServer = (path: string): Promise<unknown> => import(import.meta.resolve(`@plant-store/server/dist/${path}`));

const { expressPrototypes } = (await fromServer("runtime-internals/express-prototypes.js")) as {
  expressPrototypes: (app: Express) => Pick<ServerOptions, "IncomingMessage" | "ServerResponse">;
};
const { jsonResponseFastPath } = (await fromServer("runtime-internals/json-response-fast-path.js")) as {
  jsonResponseFastPath: (app: Express) => void;
};
const { jsonBody } = (await fromServer("request-body/json-body.js")) as { jsonBody: (limitBytes: number) => RequestHandler };

// As apps/server/src/app.ts sets them.
const app = express();
app.disable("x-powered-by");
app.set("etag", false);
jsonResponseFastPath(app);
app.post("/plants", jsonBody(1024 * 1024), (_req, res) => {
  res.json(FIXED_PLANT);
});
const server = createServer(expressPrototypes(app), app);
server.listen(0, "127.0.0.1", () => announceListening((server.address() as AddressInfo).port));
