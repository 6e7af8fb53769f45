import type { ApiFetcher } from "@ts-rest/core";
import { serializeBody } from "./serialize-body.js";

export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/** A ts-rest fetcher that sends the body losslessly and adds a fresh bearer token to each request. */
export function createFetcher(fetchFn: FetchFunction, getToken: () => Promise<string>): ApiFetcher {
  return async ({ path, method, headers, rawBody, fetchOptions }) => {
    const token = await getToken();
    const response = await fetchFn(path, {
      ...fetchOptions,
      method,
      headers: { ...headers, authorization: `Bearer ${token}` },
      ...(rawBody !== undefined && { body: serializeBody(rawBody) }),
    });
    const isJson = /\bjson\b/i.test(response.headers.get("content-type") ?? "");
    const body: unknown = isJson ? await response.json() : await response.text();
    return { status: response.status, body, headers: response.headers };
  };
}
