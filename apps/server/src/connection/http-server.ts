import type { Server } from "node:http";
import type { Express } from "express";
import type { Logger } from "../logger.js";
import { type ShedOverloadDeps, type ShedOverloadOptions, shedOverload } from "./shed-overload.js";
import { answerClientErrors } from "./client-error-answers.js";
import { expressPrototypes } from "../runtime-internals/express-prototypes.js";
import { createServer } from "../runtime-internals/node-http.js";
import { type ConnectionTimeouts, serverTimeouts } from "./server-timeouts.js";

/**
 * The HTTP server `main` listens with: Express's request/response prototypes from birth (a measured
 * speed-up on Node 24 and 26; see runtime-internals/express-prototypes.ts), the configured connection
 * timeouts, the contract's JSON Error for connection-level failures (see client-error-answers.ts) and, with
 * ADMISSION_CONTROL=true, admission control in front of Express (see shed-overload.ts).
 */
export function createHttpServer(
  app: Express,
  timeouts: ConnectionTimeouts,
  logger: Logger,
  admission?: { options: ShedOverloadOptions; deps: Omit<ShedOverloadDeps, "logger"> },
): Server {
  const listener = admission ? shedOverload(app, admission.options, { ...admission.deps, logger }) : app;
  const server = createServer({ ...expressPrototypes(app), ...serverTimeouts(timeouts) }, listener);
  answerClientErrors(server, logger);
  return server;
}
