import type { RequestHandler, Response } from "express";
import type { Lifecycle } from "../ops/lifecycle.js";

/**
 * Once shutdown has begun, every answer asks its client to close the connection (`Connection: close`), and
 * Node closes it once the answer is sent: a keep-alive connection ends right after its next answer, never
 * while a request may be on its way (see runtime-internals/stop-accepting.ts), and the client reconnects elsewhere. Answers
 * to requests already being handled when shutdown begins say so too, as long as their headers are unsent.
 */
export function connectionDraining(lifecycle: Lifecycle): RequestHandler {
  // Responses that may not have sent their headers yet; kept only until shutdown begins.
  const unanswered = new Set<Response>();
  function forget(this: Response): void {
    unanswered.delete(this);
  }
  lifecycle.onShutdown(() => {
    for (const res of unanswered) if (!res.headersSent) res.setHeader("Connection", "close");
    unanswered.clear();
  });

  return (_req, res, next) => {
    if (lifecycle.shuttingDown) {
      res.setHeader("Connection", "close");
    } else {
      unanswered.add(res);
      res.on("close", forget);
    }
    next();
  };
}
