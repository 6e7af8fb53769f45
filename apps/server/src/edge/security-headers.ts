import type { IncomingMessage, ServerResponse } from "node:http";
import type { RequestHandler } from "express";
import helmet from "helmet";

/**
 * helmet's headers with its default Content-Security-Policy (scripts and styles from this origin only,
 * which the /docs page needs and keeps to), minus upgrade-insecure-requests: the server itself speaks
 * plain HTTP and is often reached that way inside a network, where upgrading would break /docs.
 *
 * With this configuration helmet's headers are the same for every response, yet helmet rebuilds them per
 * request (the CSP string is assembled from its directives each time; 3-5 us of CPU per request, measured
 * A/B under wrk). So helmet runs once, at start-up, and each response gets the headers it set.
 */
export function securityHeaders(): RequestHandler {
  const { set, removed } = headersSetBy(
    helmet({ contentSecurityPolicy: { useDefaults: true, directives: { "upgrade-insecure-requests": null } } }),
  );
  return (_req, res, next) => {
    for (const name of removed) res.removeHeader(name);
    for (const [name, value] of set) res.setHeader(name, value);
    next();
  };
}

/** The headers a header-only middleware sets and removes, recorded by running it once on a recording response. */
function headersSetBy(
  middleware: (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void,
): { set: [string, string | string[]][]; removed: string[] } {
  const set = new Map<string, string | string[]>();
  const removed = new Set<string>();
  const recorder = {
    setHeader(name: string, value: string | string[]) {
      removed.delete(name);
      set.set(name, value);
    },
    removeHeader(name: string) {
      set.delete(name);
      removed.add(name);
    },
  };
  let finished = false;
  middleware({ headers: {} } as IncomingMessage, recorder as unknown as ServerResponse, (error) => {
    if (error) throw error;
    finished = true;
  });
  // helmet is synchronous; if a release ever is not, fail at start-up rather than send no headers.
  if (!finished) throw new Error("helmet did not finish synchronously");
  return { set: [...set], removed: [...removed] };
}
