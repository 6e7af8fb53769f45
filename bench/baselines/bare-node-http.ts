// Baseline (3), the platform limit: node:http reads the body and answers a fixed JSON.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { announceListening, FIXED_PLANT } from "./fixed-response.js";

const body = JSON.stringify(FIXED_PLANT);
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Length": Buffer.byteLength(body),
    });
    res.end(body);
  });
});
server.listen(0, "127.0.0.1", () => announceListening((server.address() as AddressInfo).port));
