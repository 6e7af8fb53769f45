import { pino, type Logger } from "pino";

export type { Logger };

/** The server's structured JSON logger; secrets and tokens are redacted wherever they appear. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: {
        paths: ["req.headers.authorization", "req.headers.cookie", "headers.authorization", "*.JWT_SECRET"],
        censor: "[redacted]",
      },
    },
    destination,
  );
}
