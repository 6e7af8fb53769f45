import { pino, type Logger } from "pino";
import { turnBatched } from "./turn-batched-destination.js";

export type { Logger };

/**
 * The server's structured JSON logger; secrets and tokens are redacted wherever they appear.
 * By default it writes to stdout, one write per event-loop turn (see turn-batched-destination.ts).
 */
export function createLogger(
  level: string,
  destination?: pino.DestinationStream,
  /** Fields added to every line, e.g. the active span's trace_id and span_id when tracing. */
  mixin?: () => object,
): Logger {
  return pino(
    {
      level,
      mixin,
      redact: {
        paths: [
          "req.headers.authorization",
          "req.headers.cookie",
          "headers.authorization",
          "*.JWT_SECRET",
          "*.JWT_SECRET_PREVIOUS",
        ],
        censor: "[redacted]",
      },
    },
    destination ?? turnBatched(pino.destination({ dest: 1, sync: true })),
  );
}
