import type { IncomingMessage } from "node:http";
import type { Logger } from "./logger.js";

/** The server's logger bound to this request's id, for a line about it besides the access log (made on use). */
export function requestLogger(logger: Logger, req: IncomingMessage): Logger {
  return logger.child({ req: { id: req.id } });
}
