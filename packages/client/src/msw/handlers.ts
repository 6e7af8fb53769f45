import { HttpResponse, type HttpHandler, http } from "msw";
import { createFakeBehaviour, type FakeControls, type FakeOptions } from "../testing/fake-behaviour.js";
import { fetchAdapter } from "../testing/fetch-fake.js";

/** What `plantStoreHandlers` takes: the fake's options and the base URL the client is given. */
export interface PlantStoreHandlersOptions extends FakeOptions {
  /**
   * The base URL the client is given, e.g. `https://plants.example.com` or `https://example.com/api`: only requests
   * under it are answered. Default: every request (give it when the code under test calls other APIs too).
   */
  baseUrl?: string;
}

/** msw handlers playing the Plant Store, with the fake's controls beside them. */
export interface PlantStoreHandlers extends FakeControls {
  /** For `setupServer(...handlers)` (Node) or `setupWorker(...handlers)` (browsers). */
  handlers: HttpHandler[];
}

function underBase(baseUrl: URL | undefined): (url: string) => boolean {
  if (baseUrl === undefined) return () => true;
  const basePath = baseUrl.pathname.replace(/\/+$/, "");
  return (raw) => {
    const url = new URL(raw);
    return url.origin === baseUrl.origin && (url.pathname === basePath || url.pathname.startsWith(`${basePath}/`));
  };
}

/**
 * msw request handlers that answer as the real Plant Store does: the same behaviour as `startFakePlantStore` and
 * `createFakePlantStore`, reached through msw (a lost connection from `failNext` is msw's network error).
 */
export function plantStoreHandlers(options: PlantStoreHandlersOptions = {}): PlantStoreHandlers {
  const behaviour = createFakeBehaviour(options);
  const baseUrl = options.baseUrl === undefined ? undefined : new URL(options.baseUrl);
  const fakeFetch = fetchAdapter(behaviour, { basePath: baseUrl?.pathname ?? "" });
  const matches = underBase(baseUrl);
  const handler = http.all(
    ({ request }) => matches(request.url),
    ({ request }) => fakeFetch(request).catch(() => HttpResponse.error()),
  );
  return { handlers: [handler], plants: behaviour.plants, failNext: behaviour.failNext, reset: behaviour.reset };
}
