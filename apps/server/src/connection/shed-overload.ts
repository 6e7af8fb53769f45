import { randomUUID } from "node:crypto";
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { ErrorCode } from "@plant-store/contract";
import { errorBody } from "../errors/error-body.js";
import { ServiceUnavailableError } from "../errors/http-errors.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "../ops/metrics.js";
import { requestIdFor } from "../request-id.js";
import { AdmissionControl } from "./admission-control.js";
import { eventLoopQueueTime, type QueueTimeSource } from "./queue-time.js";

const RETRY_AFTER_SECONDS = 1;
/** Probes and scrapes are answered whatever the load: readiness must not flap, or the overload moves to the neighbours. */
const NEVER_SHED = new Set(["/healthz", "/readyz", "/metrics"]);
/** Refused requests are logged as one line per second with their count, so the log never adds to an overload. */
const SHED_LOG_INTERVAL_MS = 1_000;

const refusal = new ServiceUnavailableError(
  ErrorCode.Overloaded,
  "the server is over capacity; retry after Retry-After seconds",
  RETRY_AFTER_SECONDS,
);
const refusalBody = Buffer.from(JSON.stringify(errorBody(refusal)));
const refusalHeaders = [
  "Content-Type",
  "application/json; charset=utf-8",
  "Content-Length",
  String(refusalBody.length),
  "Retry-After",
  String(RETRY_AFTER_SECONDS),
  "Cache-Control",
  "no-store",
  "X-Request-Id",
];

function pathOf(url: string | undefined): string {
  if (url === undefined) return "";
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}

export interface ShedOverloadDeps {
  metrics: Metrics;
  logger: Logger;
  /** Where queueing delay is read; the event loop's busy time unless a test injects its own clock. */
  queueTime?: QueueTimeSource | undefined;
}

/**
 * Runs before Express (no auth, body or store work for a refused request): each request's queueing delay, and each
 * admitted one's time to answer, go to the admission controller, and one it refuses is answered at once with 503 Overloaded and Retry-After, its body
 * and headers built once at start-up. See admission-control.ts for the policy and docs/performance.md for its price.
 */
export function shedOverload(app: RequestListener, deps: ShedOverloadDeps): RequestListener {
  const control = new AdmissionControl();
  const queueTime = deps.queueTime ?? eventLoopQueueTime();
  const { requestsShed, admissionLimit, queueDuration } = deps.metrics;
  admissionLimit.set(control.limitMs / 1000);
  const onInterval = ({ limitMs }: AdmissionControl) => admissionLimit.set(limitMs / 1000);

  // The first refusal after a quiet second is logged at once; the rest are counted into one line per second.
  let unlogged = 0;
  let longestUnloggedMs = 0;
  let logWindow: NodeJS.Timeout | undefined;
  const logShed = () => {
    if (unlogged > 0) {
      deps.logger.warn(
        {
          shed: unlogged,
          queueMs: Math.round(longestUnloggedMs),
          limitMs: Math.round(control.limitMs),
          refusalShare: Math.round(control.refusalShare * 100) / 100,
          res: { statusCode: 503 },
        },
        "requests shed",
      );
    }
    logWindow = unlogged > 0 ? setTimeout(logShed, SHED_LOG_INTERVAL_MS).unref() : undefined;
    unlogged = 0;
    longestUnloggedMs = 0;
  };

  return (req: IncomingMessage, res: ServerResponse) => {
    if (NEVER_SHED.has(pathOf(req.url))) return app(req, res);
    const sample = queueTime.sample();
    queueDuration.observe(sample.queueMs / 1000);
    if (control.admit(sample, onInterval)) {
      const arrivedMs = sample.nowMs - sample.queueMs;
      res.on("finish", () => control.answered(queueTime.nowMs() - arrivedMs));
      return app(req, res);
    }

    requestsShed.inc();
    unlogged++;
    if (sample.queueMs > longestUnloggedMs) longestUnloggedMs = sample.queueMs;
    if (logWindow === undefined) logShed();
    const incoming = req.headers["x-request-id"];
    res.writeHead(503, [...refusalHeaders, requestIdFor(incoming) ?? randomUUID()]);
    res.end(refusalBody);
  };
}
