import {
  createFakeBehaviour,
  type FakeBehaviour,
  type FakeControls,
  type FakeOptions,
  type FakeOutcome,
  type FakeRequest,
} from "./fake-behaviour.js";

/** A standard Fetch API function: what `fetch` is in Node, browsers and edge runtimes. */
export type FakeFetch = (input: Request | URL | string, init?: RequestInit) => Promise<Response>;

/** How a transport's request reaches the fake: the path it is served under, if not the origin's root. */
export interface FetchAdapterOptions {
  /** A path prefix the fake answers under, e.g. `/api` for a client with base URL `https://host/api`. */
  basePath?: string;
}

// Fetch's Request carries no Content-Length: the bytes stand in for it, as a sent request would carry them.
async function toFakeRequest(request: Request, basePath: string): Promise<FakeRequest> {
  let bytes: Uint8Array | "incomplete";
  try {
    bytes = request.body === null ? new Uint8Array() : new Uint8Array(await request.arrayBuffer());
  } catch {
    bytes = "incomplete";
  }
  const headers: Record<string, string | undefined> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (typeof bytes !== "string") headers["content-length"] = String(bytes.byteLength);
  const url = new URL(request.url);
  const underBase = url.pathname === basePath || url.pathname.startsWith(`${basePath}/`);
  const path = underBase ? url.pathname.slice(basePath.length) || "/" : url.pathname;
  return {
    method: request.method,
    target: `${path}${url.search}`,
    headers,
    readBody: async (limitBytes) => (typeof bytes === "string" || bytes.byteLength <= limitBytes ? bytes : "too-large"),
  };
}

// What fetch does when the connection is lost: reject with a TypeError, as Node's fetch and browsers do.
function lostConnection(): TypeError {
  return new TypeError("fetch failed", { cause: new Error("the fake Plant Store dropped the connection (failNext)") });
}

function toResponse(outcome: FakeOutcome): Response {
  if (!("response" in outcome)) throw lostConnection();
  const { status, headers, body } = outcome.response;
  return new Response(body, { status, headers });
}

/** The fake's behaviour as a fetch function: no server, no socket; the request's AbortSignal is honoured. */
export function fetchAdapter(behaviour: FakeBehaviour, options: FetchAdapterOptions = {}): FakeFetch {
  const basePath = (options.basePath ?? "").replace(/\/+$/, "");
  return async (input, init) => {
    const request = new Request(input, init);
    const signal = request.signal;
    if (signal.aborted) throw signal.reason;
    const answered = toFakeRequest(request, basePath).then((fakeRequest) => behaviour.answer(fakeRequest));
    const aborted = new Promise<never>((_, reject) => {
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
    return toResponse(await Promise.race([answered, aborted]));
  };
}

/** The fake Plant Store as a fetch function, with the fake's controls beside it. */
export interface FetchFakePlantStore extends FakeControls {
  /** Give it to the client: `createPlantStoreClient({ baseUrl, token, fetch: fake.fetch })`; any origin is answered. */
  fetch: FakeFetch;
}

/**
 * A fake Plant Store reached through `fetch` alone: it answers as the real server does (and as
 * `startFakePlantStore` does) in Node, browsers and edge runtimes, with no server and no socket.
 */
export function createFakePlantStore(options: FakeOptions = {}): FetchFakePlantStore {
  const behaviour = createFakeBehaviour(options);
  return {
    fetch: fetchAdapter(behaviour),
    plants: behaviour.plants,
    failNext: behaviour.failNext,
    reset: behaviour.reset,
  };
}
