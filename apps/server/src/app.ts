import { ErrorCode, plantStoreContract } from "@plant-store/contract";
import { createExpressEndpoints } from "@ts-rest/express";
import express from "express";
import { authentication } from "./auth/authentication.js";
import type { TokenVerifier } from "./auth/jwt-verifier.js";
import { corsAllowlist } from "./http/cors.js";
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
  verifier: TokenVerifier;
  /** Scopes every token must grant (JWT_REQUIRED_SCOPE); a token without them gets 403. */
  requiredScopes?: readonly string[] | undefined;
  /** Requests per token subject per minute (RATE_LIMIT_PER_MINUTE); 0 or unset is no limit. */
  rateLimitPerMinute?: number | undefined;
  logger: Logger;
  /** Largest accepted request body; larger ones get 413. */
  bodyLimitBytes: number;
  /** Browser origins allowed by CORS; none when absent. */
  corsOrigins?: readonly string[];
}

/** The Express app serving the contract; it never listens, so tests drive it without a port. */
export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable("x-powered-by");
  // Nobody caches a create's response; hashing every body for an ETag is wasted work.
  app.set("etag", false);
  app.use(requestLogging(deps.logger));
  if (deps.corsOrigins?.length) app.use(corsAllowlist(deps.corsOrigins));

  createExpressEndpoints(plantStoreContract, createPlantsRouter(deps.store), app, {
    // Auth runs before the body is read: an unauthenticated client cannot make the server read 1 MiB.
    globalMiddleware: [...authentication(deps), jsonBody(deps.bodyLimitBytes)],
    requestValidationErrorHandler: (error, _req, _res, next) => {
      const message = error.body ? describeValidationError(error.body) : "request is invalid";
      next(new BadRequestError(ErrorCode.ValidationFailed, message));
    },
  });

  app.use(notFound);
  app.use(errorHandler);
  return app;
}
