import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { ErrorCode } from "@plant-store/contract";
import { errorBody } from "../http-errors/error-body.js";
import { ServiceUnavailableError } from "../http-errors/http-errors.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "../process-state/metrics.js";
import { type AdmissionClock, processClock } from "./admission-clock.js";
import { AdmissionQueue, TARGET_MS, type Queued } from "./admission-queue.js";
import { ConcurrencyLimit } from "./concurrency-limit.js";

const RETRY_AFTER_SECONDS = 1;
/** Probes and scrapes are answered whatever the load: readiness must not flap, or the overload moves to the neighbours. */
const NEVER_SHED = new Set(["/healthz", "/readyz", "/metrics"]);
/** Refused requests are logged as one line per second with their count, so the log never adds to an overload. */
const SHED_LOG_INTERVAL_MS = 1_000;
/**
 * Most of the event loop's CPU one turn spends dispatching, in milliseconds: the turn ends and the loop polls again
 * (reading, and so timestamping, what arrived meanwhile). Twice the wait a standing queue allows, so a closed loop of
 * 100 connections is dispatched in one turn.
 */
const DISPATCH_BUDGET_MS = 2 * TARGET_MS;

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

export interface ShedOverloadDeps {
  metrics: Metrics;
  logger: Logger;
  /** Wall and CPU time; the process's unless a test injects its own. */
  clock?: AdmissionClock | undefined;
}

interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
}

const clientGone = ({ req }: Exchange) => req.socket === null || req.socket.destroyed;

/**
 * Admission control between node:http and Express. Each parsed request is stamped and queued (admission-queue.ts:
 * CoDel's wait limit, adaptive LIFO); once per event-loop turn, in the check phase, a dispatcher refuses the requests
 * that waited too long with 503 Overloaded, drops those whose client has gone, and hands the rest to Express while
 * fewer than the concurrency limit (concurrency-limit.ts, a latency gradient) are dispatched and unanswered, within
 * DISPATCH_BUDGET_MS of CPU. Health, readiness and metrics bypass the queue. See docs/performance.md#overload.
 */
export function shedOverload(app: RequestListener, deps: ShedOverloadDeps): RequestListener {
  const clock = deps.clock ?? processClock();
  const queue = new AdmissionQueue<Exchange>(clock.cpuMs());
  const limit = new ConcurrencyLimit();
  const { requestsShed, admissionLimit, concurrencyLimit, queueDuration } = deps.metrics;
  let inFlight = 0;
  let scheduled = false;
  let waitLimitMs = queue.waitLimitMs(clock.cpuMs());
  admissionLimit.set(waitLimitMs / 1000);
  concurrencyLimit.set(limit.limit);

  // The first refusal after a quiet second is logged at once; the rest are counted into one line per second.
  let unlogged = 0;
  let dropped = 0;
  let longestUnloggedMs = 0;
  let logWindow: NodeJS.Timeout | undefined;
  const logShed = () => {
    if (unlogged > 0 || dropped > 0) {
      deps.logger.warn(
        {
          shed: unlogged,
          dropped,
          queueMs: Math.round(longestUnloggedMs),
          limitMs: waitLimitMs,
          concurrency: limit.limit,
          res: { statusCode: 503 },
        },
        "requests shed",
      );
    }
    logWindow = unlogged > 0 || dropped > 0 ? setTimeout(logShed, SHED_LOG_INTERVAL_MS).unref() : undefined;
    unlogged = 0;
    dropped = 0;
    longestUnloggedMs = 0;
  };

  let refusedThisTurn = 0;
  let nowWallMs = 0;
  const refuse = (queued: Queued<Exchange>) => {
    if (clientGone(queued.item)) {
      dropped++;
      return;
    }
    refusedThisTurn++;
    const waitedMs = nowWallMs - queued.wallMs;
    if (waitedMs > longestUnloggedMs) longestUnloggedMs = waitedMs;
    queued.item.res.writeHead(503, refusalHeaders);
    queued.item.res.end(refusalBody);
  };

  const dispatch = ({ item, wallMs }: Queued<Exchange>, dispatchedMs: number) => {
    queueDuration.observe((dispatchedMs - wallMs) / 1000);
    inFlight++;
    const inFlightAtDispatch = inFlight;
    item.res.once("close", () => {
      inFlight--;
      const answeredMs = clock.wallMs();
      limit.sample(answeredMs - dispatchedMs, inFlightAtDispatch, answeredMs);
      schedule();
    });
    app(item.req, item.res);
  };

  const drain = () => {
    scheduled = false;
    nowWallMs = clock.wallMs();
    queue.expire(clock.cpuMs(), refuse);
    // The budget is for dispatching: refusals, however many, must not leave a turn with no time to serve.
    const startCpuMs = clock.cpuMs();
    let cpuMs = startCpuMs;
    while (queue.length > 0 && inFlight < limit.limit && cpuMs - startCpuMs < DISPATCH_BUDGET_MS) {
      const queued = queue.take(cpuMs)!;
      if (clientGone(queued.item)) dropped++;
      else dispatch(queued, clock.wallMs());
      cpuMs = clock.cpuMs();
    }
    // Left by the budget: go on next turn, after the loop has polled. Left by the limit: an answer schedules it.
    if (queue.length > 0 && inFlight < limit.limit) schedule();
    if (refusedThisTurn > 0) {
      requestsShed.inc(refusedThisTurn);
      unlogged += refusedThisTurn;
      refusedThisTurn = 0;
    }
    const nextWaitLimitMs = queue.waitLimitMs(cpuMs);
    if (nextWaitLimitMs !== waitLimitMs) {
      waitLimitMs = nextWaitLimitMs;
      admissionLimit.set(waitLimitMs / 1000);
    }
    concurrencyLimit.set(limit.limit);
    if ((unlogged > 0 || dropped > 0) && logWindow === undefined) logShed();
  };

  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(drain);
  };

  return (req: IncomingMessage, res: ServerResponse) => {
    if (NEVER_SHED.has(pathOf(req.url))) return app(req, res);
    queue.push({ req, res }, clock.wallMs(), clock.cpuMs());
    schedule();
  };
}
