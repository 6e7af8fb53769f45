import { ErrorCode, plantStoreContract } from "@plant-store/contract";
import { createExpressEndpoints } from "@ts-rest/express";
import express from "express";
import { bearerAuth } from "./auth/bearer-auth.js";
import type { JwtVerifier } from "./auth/jwt-verifier.js";
import { VerifiedTokenCache } from "./auth/verified-token-cache.js";
import { errorHandler, notFound } from "./http/error-handler.js";
import { BadRequestError } from "./http/http-errors.js";
import { jsonBody } from "./http/json-body.js";
import { requestLogging } from "./http/request-logging.js";
import { describeValidationError } from "./http/validation-message.js";
import type { Logger } from "./logger.js";
import { createPlantsRouter } from "./plants/create-plant.js";
import type { PlantStore } from "./store/plant-store.js";

export interface AppDeps {
  store: PlantStore;
  verifier: JwtVerifier;
  logger: Logger;
  /** Largest accepted request body; larger ones get 413. */
  bodyLimitBytes: number;
}

/** The Express app serving the contract; it never listens, so tests drive it without a port. */
export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable("x-powered-by");
  // Nobody caches a create's response; hashing every body for an ETag is wasted work.
  app.set("etag", false);
  app.use(requestLogging(deps.logger));

  createExpressEndpoints(plantStoreContract, createPlantsRouter(deps.store), app, {
    // Auth runs before the body is read: an unauthenticated client cannot make the server read 1 MiB.
    globalMiddleware: [bearerAuth(new VerifiedTokenCache(deps.verifier)), jsonBody(deps.bodyLimitBytes)],
    requestValidationErrorHandler: (error, _req, _res, next) => {
      const message = error.body ? describeValidationError(error.body) : "request is invalid";
      next(new BadRequestError(ErrorCode.ValidationFailed, message));
    },
  });

  app.use(notFound);
  app.use(errorHandler);
  return app;
}
