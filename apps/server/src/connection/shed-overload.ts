import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { ErrorCode } from "@plant-store/contract";
import { errorBody } from "../http-errors/error-body.js";
import { ServiceUnavailableError } from "../http-errors/http-errors.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "../process-state/metrics.js";
import { type AdmissionClock, processClock } from "./admission-clock.js";
import { AdmissionQueue, type Queued } from "./admission-queue.js";
import { statedDeadline } from "./request-deadline.js";
import { ServicePace } from "./service-pace.js";

const RETRY_AFTER_SECONDS = 1;
/** Probes and scrapes are answered whatever the load: readiness must not flap, or the overload moves to the neighbours. */
const NEVER_SHED = new Set(["/healthz", "/readyz", "/metrics"]);
/** Refused requests are logged as one line per second with their count, so the log never adds to an overload. */
const SHED_LOG_INTERVAL_MS = 1_000;
/**
 * Most of the event loop's CPU one turn spends dispatching, in milliseconds: the turn ends and the loop polls again
 * (reading, and so timestamping, what arrived meanwhile), so a request's wait is seen in the queue, where its
 * deadline is checked, and not in sockets the loop has not read yet.
 */
const DISPATCH_BUDGET_MS = 10;

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
  /** How long a request may wait for dispatch when its caller states no shorter deadline, in milliseconds. */
  queueTimeoutMs: number;
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
 * Admission control between node:http and Express: a queue that bounds how long a request waits, never how many are
 * served at once (admission-queue.ts). Each parsed request gets a deadline: the shortest its caller states
 * (request-deadline.ts: Envoy's `x-envoy-expected-rq-timeout-ms`, the client's `x-request-timeout-ms`), less the
 * longest recent event-loop turn (service-pace.ts: how long it may have sat unread), or the queue timeout. Once per event-loop turn, in the check phase, a dispatcher takes out the requests past their
 * deadline, and hands the rest to Express within DISPATCH_BUDGET_MS of CPU. A request that cannot be answered before
 * its deadline (it is past it, or an answer takes longer than it has left) gets the static 503 Overloaded with
 * Retry-After, without any work, and one whose client has gone is dropped; a request with a deadline of its own that
 * the queue ahead of it would outlast is refused on arrival. Health, readiness and metrics bypass the queue.
 *
 * Refusals are logged at most once a second, as `requests shed` with: `shed`, requests answered 503 since the last
 * line; `dropped`, requests whose client had gone, never answered; `queueMs`, the longest a shed request waited;
 * `queued`, requests waiting at the time of the line. See docs/performance.md#overload.
 */
export function shedOverload(
  app: RequestListener,
  options: ShedOverloadOptions,
  deps: ShedOverloadDeps,
): RequestListener {
  const clock = deps.clock ?? processClock();
  const queue = new AdmissionQueue<Exchange>();
  const pace = new ServicePace();
  const { requestsShed, queueDuration } = deps.metrics;
  const reportedInvalid = new Set<string>();
  let scheduled = false;

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
          queued: queue.length,
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
  const refuse = (exchange: Exchange, waitedMs: number) => {
    if (clientGone(exchange)) {
      dropped++;
      return;
    }
    refusedThisTurn++;
    if (waitedMs > longestUnloggedMs) longestUnloggedMs = waitedMs;
    exchange.res.writeHead(503, refusalHeaders);
    exchange.res.end(refusalBody);
  };
  let nowMs = 0;
  const expired = (queued: Queued<Exchange>) => refuse(queued.item, nowMs - queued.arrivedMs);

  const dispatch = ({ item, arrivedMs }: Queued<Exchange>, dispatchedMs: number) => {
    queueDuration.observe((dispatchedMs - arrivedMs) / 1000);
    item.res.once("close", () => {
      const answeredMs = clock.wallMs();
      pace.answered(answeredMs - dispatchedMs, answeredMs);
    });
    app(item.req, item.res);
  };

  const settleTurn = () => {
    if (refusedThisTurn > 0) {
      requestsShed.inc(refusedThisTurn);
      unlogged += refusedThisTurn;
      refusedThisTurn = 0;
    }
    if ((unlogged > 0 || dropped > 0) && logWindow === undefined) logShed();
  };

  let leftWaiting = false;
  const drain = () => {
    scheduled = false;
    nowMs = clock.wallMs();
    pace.turnStarted(nowMs, leftWaiting);
    queue.expire(nowMs, expired);
    const serviceMs = pace.serviceMs(nowMs);
    const startCpuMs = clock.cpuMs();
    let dispatched = 0;
    while (queue.length > 0 && clock.cpuMs() - startCpuMs < DISPATCH_BUDGET_MS) {
      const queued = queue.take(nowMs)!;
      if (clientGone(queued.item)) dropped++;
      else if (nowMs + serviceMs >= queued.deadlineMs) refuse(queued.item, nowMs - queued.arrivedMs);
      else {
        dispatch(queued, nowMs);
        dispatched++;
      }
      nowMs = clock.wallMs();
    }
    leftWaiting = queue.length > 0;
    pace.dispatched(dispatched, nowMs, leftWaiting);
    // Left by the budget: go on next turn, after the loop has polled.
    if (leftWaiting) schedule();
    settleTurn();
  };

  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(drain);
  };

  return (req: IncomingMessage, res: ServerResponse) => {
    if (NEVER_SHED.has(pathOf(req.url))) return app(req, res);
    const arrivedMs = clock.wallMs();
    const stated = statedDeadline(req.headers);
    if (stated.invalid !== undefined && !reportedInvalid.has(stated.invalid.header)) {
      reportedInvalid.add(stated.invalid.header);
      deps.logger.warn(
        { header: stated.invalid.header, value: stated.invalid.value },
        "deadline header ignored: not a whole number of milliseconds from 1 to 999999999 (logged once per header)",
      );
    }
    const exchange = { req, res };
    if (stated.timeLeftMs === undefined || stated.timeLeftMs >= options.queueTimeoutMs) {
      queue.push(exchange, arrivedMs, arrivedMs + options.queueTimeoutMs);
    } else {
      // Its caller started counting before the server saw it (up to a busy turn, unread in its socket).
      const leftMs = stated.timeLeftMs - pace.unseenMs(arrivedMs);
      // Served in order, it would wait behind everyone queued: refused now, if that outlasts its deadline.
      const expectedMs = (queue.standing(arrivedMs) ? 0 : pace.waitMs(queue.length)) + pace.serviceMs(arrivedMs);
      if (expectedMs >= leftMs) {
        refuse(exchange, 0);
        settleTurn();
        return;
      }
      queue.push(exchange, arrivedMs, arrivedMs + leftMs, true);
    }
    schedule();
  };
}
