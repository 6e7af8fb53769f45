import { int64BodyFields } from "@plant-store/contract";
import {
  type AppRoute,
  type AppRouter,
  type ClientInferRequest,
  type ClientInferResponses,
  ContractNoBody,
  initClient,
  isAppRoute,
  type SuccessfulHttpStatusCode,
  UnknownStatusError,
} from "@ts-rest/core";
import { AdaptiveThrottle, originOf, originWindow } from "./adaptive-throttle.js";
import { startDeadline } from "./deadline.js";
import { PlantStoreApiError } from "./errors.js";
import { createFetcher, type ThrottleGate } from "./fetcher.js";
import { type Int64Lenient, toInt64Fields } from "./int64-body.js";
import type { CallOptions, FetchFunction, PlantStoreClientOptions } from "./options.js";
import { RetryBudget } from "./retry-budget.js";
import { withBigIntSafeJson } from "./serialize-body.js";
import { createTokenSource } from "./token-source.js";

type RequestParts<R extends AppRoute> = Pick<
  ClientInferRequest<R>,
  Extract<keyof ClientInferRequest<R>, "params" | "query" | "body">
>;

/**
 * What a route's method takes: the body itself for a route that has only a body (`create(plant)`), else
 * `{ params, query, body }` as the route declares them; int64 fields of a body also accept safe integers.
 */
export type RouteInput<R extends AppRoute> = [keyof RequestParts<R>] extends [never]
  ? undefined
  : [keyof RequestParts<R>] extends ["body"]
    ? Int64Lenient<ClientInferRequest<R>["body" & keyof ClientInferRequest<R>]>
    : { [K in keyof RequestParts<R>]: K extends "body" ? Int64Lenient<RequestParts<R>[K]> : RequestParts<R>[K] };

/** Every response a route can give, typed by status, exactly as the contract declares them. */
export type RouteResult<R extends AppRoute> = ClientInferResponses<R>;
/** The body of a route's success responses (2xx). */
export type RouteSuccessBody<R extends AppRoute> = Extract<
  RouteResult<R>,
  { status: SuccessfulHttpStatusCode }
>["body"];

type RouteArgs<R extends AppRoute> =
  RouteInput<R> extends undefined
    ? [input?: undefined, options?: CallOptions]
    : [input: RouteInput<R>, options?: CallOptions];

/**
 * Calls the route and resolves with the response for any status the contract declares for it. Rejects with
 * PlantStoreApiError for a status it does not declare (a 502 from a proxy, say), with PlantStoreTimeoutError
 * when `timeoutMs` runs out, with the signal's reason when aborted, and with the fetch error when the network
 * fails after the last retry.
 */
export type RouteMethod<R extends AppRoute> = (...args: RouteArgs<R>) => Promise<RouteResult<R>>;
/** Like the route's method, but resolves with the success body and rejects with PlantStoreApiError for every other status. */
export type RouteMethodOrThrow<R extends AppRoute> = (...args: RouteArgs<R>) => Promise<RouteSuccessBody<R>>;

type Flatten<T> = { [K in keyof T]: T[K] };

/** For every route of the contract a method of the same name and an `…OrThrow` variant, nested as the router is. */
export type ContractClient<T extends AppRouter> = Flatten<
  {
    [K in keyof T]: T[K] extends AppRoute ? RouteMethod<T[K]> : T[K] extends AppRouter ? ContractClient<T[K]> : never;
  } & {
    [K in keyof T as T[K] extends AppRoute ? `${K & string}OrThrow` : never]: T[K] extends AppRoute
      ? RouteMethodOrThrow<T[K]>
      : never;
  }
>;

const DEFAULTS = { timeoutMs: 30_000, retries: 2, retryDelayMs: 200, maxRetryDelayMs: 10_000 } as const;

// ts-rest's call for one route: it takes `{ params, query, body, fetchOptions }`.
type TsRestCall = (args: Record<string, unknown>) => Promise<{ status: number; body: unknown }>;
type AnyMethod = (input?: unknown, options?: CallOptions) => Promise<unknown>;

function hasBodyOnly(route: AppRoute): boolean {
  const body = "body" in route ? route.body : ContractNoBody;
  const hasBody = body !== ContractNoBody && body !== null && body !== undefined;
  return hasBody && !/:[A-Za-z_]/.test(route.path) && !("query" in route && route.query);
}

/** The request arguments ts-rest expects for the method's input, the body made safe for int64 fields. */
function requestArgs(route: AppRoute, input: unknown): Record<string, unknown> {
  const fields = int64BodyFields(route);
  const prepare = (body: unknown) =>
    typeof body === "object" && body !== null ? withBigIntSafeJson(toInt64Fields(body, fields)) : body;
  if (input === undefined) return {};
  if (hasBodyOnly(route)) return { body: prepare(input) };
  const { body, ...rest } = input as Record<string, unknown>;
  return body === undefined ? rest : { ...rest, body: prepare(body) };
}

/** The throttle's window for the base URL's origin: the client's own throttle, a shared one, or none. */
function throttleGate(baseUrl: string, throttle: PlantStoreClientOptions["throttle"]): ThrottleGate | undefined {
  if (throttle === false) return undefined;
  const origin = originOf(baseUrl);
  const shared = throttle instanceof AdaptiveThrottle ? throttle : new AdaptiveThrottle(throttle);
  return { origin, window: originWindow(shared, origin) };
}

/**
 * Builds a client for any ts-rest contract: each route becomes a method with its declared responses and an
 * `…OrThrow` variant, every call sharing the conveniences (lossless int64 bodies, a fresh token per attempt,
 * one refresh after a 401, retries of network errors, 429 and 503 within one retry budget, adaptive throttling per
 * origin, and a deadline per call).
 */
export function createContractClient<T extends AppRouter>(
  contract: T,
  options: PlantStoreClientOptions,
): ContractClient<T> {
  const fetchFn: FetchFunction = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const policy = {
    retries: options.retries ?? DEFAULTS.retries,
    retryDelayMs: options.retryDelayMs ?? DEFAULTS.retryDelayMs,
    maxRetryDelayMs: options.maxRetryDelayMs ?? DEFAULTS.maxRetryDelayMs,
  };
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const api = initClient(contract, {
    baseUrl,
    baseHeaders: {},
    throwOnUnknownStatus: true,
    api: createFetcher(
      fetchFn,
      createTokenSource(options),
      policy,
      new RetryBudget(options.retryBudget),
      throttleGate(baseUrl, options.throttle),
    ),
  }) as unknown as Record<string, unknown>;

  const methodFor = (route: AppRoute, call: TsRestCall): AnyMethod => {
    return async (input, callOptions = {}) => {
      const args = requestArgs(route, input);
      const deadline = startDeadline(
        callOptions.timeoutMs ?? options.timeoutMs ?? DEFAULTS.timeoutMs,
        callOptions.signal,
      );
      try {
        return await call({ ...args, fetchOptions: { signal: deadline.signal } });
      } catch (error) {
        if (error instanceof UnknownStatusError)
          throw new PlantStoreApiError(error.response.status, error.response.body);
        throw error;
      } finally {
        deadline.release();
      }
    };
  };

  const build = (router: AppRouter, calls: Record<string, unknown>): Record<string, unknown> => {
    const client: Record<string, unknown> = {};
    for (const [name, entry] of Object.entries(router)) {
      if (!isAppRoute(entry)) {
        client[name] = build(entry, calls[name] as Record<string, unknown>);
        continue;
      }
      const method = methodFor(entry, calls[name] as TsRestCall);
      client[name] = method;
      client[`${name}OrThrow`] = async (input?: unknown, callOptions?: CallOptions) => {
        const result = (await method(input, callOptions)) as { status: number; body: unknown };
        if (result.status >= 200 && result.status < 300) return result.body;
        throw new PlantStoreApiError(result.status, result.body);
      };
    }
    return client;
  };
  return build(contract, api) as ContractClient<T>;
}
