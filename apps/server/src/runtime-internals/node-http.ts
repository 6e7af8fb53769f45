import type * as http from "node:http";

/**
 * node:http's exports as the server uses them, taken with `process.getBuiltinModule` rather than an ES `import`.
 *
 * An ES import of a built-in builds a module namespace from all of its exports, reading every getter. Node 24's
 * node:http has three lazy ones, `WebSocket`, `CloseEvent` and `MessageEvent`, and reading them loads undici
 * (Node's fetch), which the server never uses. Node 24.18.1, 8 alternating starts of each build: idle RSS 4.5 MiB
 * lower (median; 8 of 8); peak over 12 s at 100 connections 2.3 MiB lower (median; 6 of 8), and no lower over a
 * whole benchmark run. Node 20 has no such getters.
 * Type-only imports of node:http cost nothing; values come from here.
 * test/runtime-internals/node-http.test.ts fails if the built server loads undici, or if a Node release stops
 * loading it on an ES import (then this file can go).
 */
export const { createServer, IncomingMessage, ServerResponse, STATUS_CODES } = process.getBuiltinModule("node:http");
/** The classes' instance types under the same names, as `import { IncomingMessage } from "node:http"` gives both. */
export type IncomingMessage = http.IncomingMessage;
export type ServerResponse<Request extends http.IncomingMessage = http.IncomingMessage> = http.ServerResponse<Request>;
