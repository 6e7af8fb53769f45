/** One HTTP request of a scenario; `auth: true` adds the target's bearer token. */
export interface Exchange {
  method: string;
  path: string;
  auth?: boolean;
  headers?: Record<string, string>;
  /** The body's exact bytes: a string is sent as UTF-8, with no Content-Type unless `headers` gives one. */
  body?: string | Uint8Array;
}

/** What a response shows a client: the part two implementations of the contract must agree on. */
export interface Observed {
  status: number;
  contentType: string | null;
  wwwAuthenticate: string | null;
  retryAfter: string | null;
  /** "echoed" when the request's X-Request-Id came back, "generated" for a new UUID, else the value. */
  requestId: string | null;
  body: unknown;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Sends the exchange to `baseUrl` with `fetchFn` (the global fetch, or a fake's) and records what came back. */
export async function send(
  baseUrl: string,
  token: string,
  exchange: Exchange,
  fetchFn: typeof fetch = fetch,
): Promise<Observed> {
  const headers: Record<string, string> = { ...exchange.headers };
  if (exchange.auth) headers.authorization = `Bearer ${token}`;
  const body = exchange.body === undefined ? undefined : new Uint8Array(Buffer.from(exchange.body));
  const response = await fetchFn(`${baseUrl}${exchange.path}`, {
    method: exchange.method,
    headers,
    ...(body && { body }),
  });
  const text = await response.text();
  const requestId = response.headers.get("x-request-id");
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: compared as text.
  }
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    wwwAuthenticate: response.headers.get("www-authenticate"),
    retryAfter: response.headers.get("retry-after"),
    requestId:
      requestId !== null && requestId === exchange.headers?.["x-request-id"]
        ? "echoed"
        : requestId && UUID.test(requestId)
          ? "generated"
          : requestId,
    body: parsed,
  };
}
