import { ErrorCode, plantStoreContract } from "@plant-store/contract";
import { createExpressEndpoints } from "@ts-rest/express";
import express, { type RequestHandler } from "express";
import { authentication } from "./auth/authentication.js";
import type { TokenVerifier } from "./auth/token-verifier.js";
import { corsAllowlist } from "./edge/cors-allowlist.js";
import { httpMetrics } from "./edge/http-metrics.js";
import { requestLogging } from "./edge/request-logging.js";
import { responseValidation } from "./edge/response-validation.js";
import { securityHeaders } from "./edge/security-headers.js";
import { errorHandler, notFound } from "./error-mapping/error-handler.js";
import { BadRequestError } from "./http-errors/http-errors.js";
import type { Logger } from "./logger.js";
import { Lifecycle } from "./process-state/lifecycle.js";
import { createMetrics, type Metrics } from "./process-state/metrics.js";
import { jsonBody } from "./request-body/json-body.js";
import { describeValidationError } from "@plant-store/contract/wire";
import { apiDocsRoutes } from "./routes/api-docs-routes.js";
import { healthRoutes } from "./routes/health-routes.js";
import { metricsRoutes } from "./routes/metrics-routes.js";
import { plantsRoutes } from "./routes/plants-routes.js";
import { closeConnectionsOnShutdown } from "./runtime-internals/close-connections-on-shutdown.js";
import { headersInHead } from "./runtime-internals/headers-in-head.js";
import { jsonResponseFastPath } from "./runtime-internals/json-response-fast-path.js";
import type { PlantStore } from "./store/plant-store.js";
import { timedStore } from "./store/timed-store.js";

export interface AppDeps {
  store: PlantStore;
  /** Verifies bearer tokens; the composition root hands it the verified-token cache over the key source. */
  verifier: TokenVerifier;
  /** Scopes every token must grant (JWT_REQUIRED_SCOPE); a token without them gets 403. */
  requiredScopes?: readonly string[] | undefined;
  /** Requests per token subject per minute (RATE_LIMIT_PER_MINUTE); 0 or unset is no limit. */
  rateLimitPerMinute?: number | undefined;
  logger: Logger;
  /** Largest accepted request body; larger ones get 413. */
  bodyLimitBytes: number;
  /** Where the request and store metrics go; a fresh registry when omitted. */
  metrics?: Metrics;
  /** Flipped by the shutdown sequence so GET /readyz answers 503. */
  lifecycle?: Lifecycle;
  /** Browser origins allowed by CORS (CORS_ORIGINS); none when omitted. */
  corsOrigins?: readonly string[];
  /** Express's `trust proxy` (TRUST_PROXY); false when omitted. */
  trustProxy?: boolean | number | string;
  /** Serve GET /metrics on this app; false when it has a port of its own (METRICS_PORT). */
  serveMetrics?: boolean;
  /** Middleware every request passes before the edge (the request's trace span, when tracing); none when omitted. */
  first?: readonly RequestHandler[];
  /** Check every response against the contract (VALIDATE_RESPONSES); off when omitted. */
  validateResponses?: boolean;
  /** The API's public base URL (PUBLIC_URL), listed as the server in GET /openapi.json. */
  publicUrl?: string | undefined;
}

/**
 * The Express app serving the contract, its stages in the order a request meets them: edge (id and log,
 * metrics, draining, CORS; the security headers go out with every response's head), then the API route (auth,
 * body, validation, the plants domain, the store), then the operational routes, then the one error handler. It
 * never listens: tests drive it without a port, and startPlantStore puts it behind the HTTP server.
 */
export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable("x-powered-by");
  // Nobody caches a create's response; hashing every body for an ETag is wasted work.
  app.set("etag", false);
  app.set("trust proxy", deps.trustProxy ?? false);
  const metrics = deps.metrics ?? createMetrics();
  const store = timedStore(deps.store, metrics);
  const lifecycle = deps.lifecycle ?? new Lifecycle();
  // Once shutdown begins, every answer closes its keep-alive connection (the drain; see the file for how).
  closeConnectionsOnShutdown(app, lifecycle);
  // res.json for a plain API answer without Express's general send() (see the file for when it applies).
  jsonResponseFastPath(app);
  // helmet's security headers on every response, recorded once and written with each head (see the file for why).
  headersInHead(app, securityHeaders());

  // The edge: what every request passes through first (after the request's span, when tracing).
  for (const handler of deps.first ?? []) app.use(handler);
  app.use(requestLogging(deps.logger));
  if (deps.validateResponses) app.use(responseValidation(deps.logger));
  app.use(httpMetrics(metrics));
  if (deps.corsOrigins?.length) app.use(corsAllowlist(deps.corsOrigins));

  // The API first: its paths and the operational ones below never overlap, and every POST /plants
  // would otherwise walk the three routers below before reaching its own.
  const router = plantsRoutes(store);
  const readBody = jsonBody(deps.bodyLimitBytes);
  createExpressEndpoints(plantStoreContract, router, app, {
    // Auth runs before the body is read: an unauthenticated client cannot make the server read 1 MiB.
    globalMiddleware: [...authentication(deps), readBody],
    requestValidationErrorHandler: (error, _req, _res, next) => {
      const message = error.body ? describeValidationError(error.body) : "request is invalid";
      next(new BadRequestError(ErrorCode.ValidationFailed, message));
    },
  });
  app.use(healthRoutes({ store, lifecycle }));
  if (deps.serveMetrics ?? true) app.use(metricsRoutes(metrics.registry));
  app.use(apiDocsRoutes(deps.publicUrl));

  app.use(notFound);
  app.use(errorHandler(deps.logger));
  return app;
}
