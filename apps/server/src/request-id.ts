import { REQUEST_ID } from "@plant-store/contract/wire";

declare module "node:http" {
  interface IncomingMessage {
    /** This request's id: the caller's X-Request-Id when it is safe to log, else a new UUID. */
    id: string;
  }
}

/**
 * The caller's X-Request-Id when it is safe to log and echo, else undefined (the caller makes a new UUID).
 * Cross-cutting, like logger.ts: edge/ gives every request its id, connection/ the requests it answers itself.
 */
export function requestIdFor(incoming: string | string[] | undefined): string | undefined {
  return typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : undefined;
}
