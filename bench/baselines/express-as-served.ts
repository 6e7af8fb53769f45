// Baseline (6), the framework floor as Plant Store pays it: Express 5 with the built server's own Express
// settings and request-path tricks (objects born with Express's prototypes, res.json's fast path) and its
// lossless body reader, answering a fixed JSON. No auth, validation, store, log line, metrics or security
// headers: what the design card's framework costs the server before it does any of its own work.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expressPrototypes, jsonBody, jsonResponseFastPath } from "@plant-store/server/express-as-served";
import express from "express";
import { announceListening, FIXED_PLANT } from "./fixed-response.js";

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
