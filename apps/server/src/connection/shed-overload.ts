import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { ErrorCode } from "@plant-store/contract";
import { errorBody } from "../http-errors/error-body.js";
import { ServiceUnavailableError } from "../http-errors/http-errors.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "../process-state/metrics.js";
import { type AdmissionClock, processClock } from "./admission-clock.js";
import { statedDeadline } from "./request-deadline.js";
import { ServicePace } from "./service-pace.js";

const RETRY_AFTER_SECONDS = 1;
/** Probes and scrapes are answered whatever the load: readiness must not flap, or the overload moves to the neighbours. */
const NEVER_SHED = new Set(["/healthz", "/readyz", "/metrics"]);
/** Refused requests are logged as one line per second with their count, so the log never adds to an overload. */
const SHED_LOG_INTERVAL_MS = 1_000;

// The refusal is the same bytes every time: no request id, no header array, no histogram per refusal.
const refusalBody = Buffer.from(
  JSON.stringify(
    errorBody(
      new ServiceUnavailableError(
        ErrorCode.Overloaded,
        "the server is over capacity; retry after Retry-After seconds",
        RETRY_AFTER_SECONDS,
      ),
    ),
  ),
);
const refusalHeaders = Object.freeze([
  "Content-Type",
  "application/json; charset=utf-8",
  "Content-Length",
  String(refusalBody.length),
  "Retry-After",
  String(RETRY_AFTER_SECONDS),
  "Cache-Control",
  "no-store",
]) as unknown as string[];

function pathOf(url: string | undefined): string {
  if (url === undefined) return "";
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}

/** Admission control's options. */
export interface ShedOverloadOptions {
  /** The deadline of a request whose caller states none shorter, in milliseconds from its arrival. */
  queueTimeoutMs: number;
}

export interface ShedOverloadDeps {
  metrics: Metrics;
  logger: Logger;
  /** Wall time and the event loop's delay; the process's unless a test injects its own. */
  clock?: AdmissionClock | undefined;
}

/**
 * Admission control between node:http and Express: a request that cannot be answered before its deadline is refused
 * as it arrives, with the static 503 Overloaded and Retry-After, before any work; every other request goes to
 * Express at once. It bounds waiting, never concurrency, and keeps no queue of its own: requests wait where waiting
 * is free, in their sockets, and not as parsed requests in the heap, where holding closed loops of 1,024-4,096 cost
 * 9-28% more CPU per request in garbage collection (docs/performance.md#overload).
 *
 * A request's deadline is the shortest its caller states (request-deadline.ts: Envoy's
 * `x-envoy-expected-rq-timeout-ms`, the client's `x-request-timeout-ms`), less how late the event loop has lately
 * been (how long it may have sat unread); or, when it states none shorter, QUEUE_TIMEOUT_MS. It cannot be met when
 * recent answers took longer than that (service-pace.ts): the 95th percentile against a caller's deadline, so no 2xx
 * comes after it; the median against QUEUE_TIMEOUT_MS, so a closed loop whose wait stays under it is never refused,
 * and an open loop whose wait grows is cut there. Health, readiness and metrics are never refused.
 *
 * Refusals are logged at most once a second, as `requests shed` with: `shed`, requests answered 503 since the last
 * line; `typicalMs` and `slowMs`, the median and 95th percentile answer time they were held against; `loopDelayMs`,
 * how late the event loop was.
 */
export function shedOverload(
  app: RequestListener,
  options: ShedOverloadOptions,
  deps: ShedOverloadDeps,
): RequestListener {
  const clock = deps.clock ?? processClock();
  const pace = new ServicePace(() => clock.loopDelayMs());
  const { requestsShed } = deps.metrics;
  const reportedInvalid = new Set<string>();

  // The first refusal after a quiet second is logged at once; the rest are counted into one line per second.
  let unlogged = 0;
  let logWindow: NodeJS.Timeout | undefined;
  const logShed = () => {
    if (unlogged > 0) {
      const { typicalMs, slowMs, loopDelayMs } = pace.recent(clock.wallMs());
      deps.logger.warn(
        {
          shed: unlogged,
          typicalMs: Math.round(typicalMs),
          slowMs: Math.round(slowMs),
          loopDelayMs: Math.round(loopDelayMs),
          res: { statusCode: 503 },
        },
        "requests shed",
      );
    }
    logWindow = unlogged > 0 ? setTimeout(logShed, SHED_LOG_INTERVAL_MS).unref() : undefined;
    unlogged = 0;
  };

  const refuse = (res: ServerResponse) => {
    unlogged++;
    requestsShed.inc();
    res.writeHead(503, refusalHeaders);
    res.end(refusalBody);
    if (logWindow === undefined) logShed();
  };

  const reportInvalid = (header: string, value: string) => {
    if (reportedInvalid.has(header)) return;
    reportedInvalid.add(header);
    deps.logger.warn(
      { header, value },
      "deadline header ignored: not a whole number of milliseconds from 1 to 999999999 (logged once per header)",
    );
  };

  return (req: IncomingMessage, res: ServerResponse) => {
    if (NEVER_SHED.has(pathOf(req.url))) return app(req, res);
    const arrivedMs = clock.wallMs();
    const stated = statedDeadline(req.headers);
    if (stated.invalid !== undefined) reportInvalid(stated.invalid.header, stated.invalid.value);
    const recent = pace.recent(arrivedMs);
    const own = stated.timeLeftMs !== undefined && stated.timeLeftMs < options.queueTimeoutMs;
    const cannotMeet = own
      ? recent.slowMs + recent.loopDelayMs >= stated.timeLeftMs!
      : recent.typicalMs >= options.queueTimeoutMs;
    if (cannotMeet) return refuse(res);
    res.once("close", () => {
      const answeredMs = clock.wallMs();
      pace.answered(answeredMs - arrivedMs, answeredMs);
    });
    app(req, res);
  };
}
