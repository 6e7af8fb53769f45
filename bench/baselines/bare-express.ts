// Baseline (2), the framework floor: Express 5 with express.json() answering a fixed JSON.
// Defaults kept on purpose (ETag, x-powered-by): this is Express as `npm init` gives it.
import type { AddressInfo } from "node:net";
import express from "express";
import { announceListening, FIXED_PLANT } from "./fixed-response.js";

const app = express();
app.use(express.json());
app.post("/plants", (_req, res) => {
  res.json(FIXED_PLANT);
});
const server = app.listen(0, "127.0.0.1", () => announceListening((server.address() as AddressInfo).port));
