import { createLogger, type Logger } from "../../src/logger.js";

/** A real pino logger whose JSON lines are kept in memory, exactly as they would be written to stdout. */
export function capturingLogger(level = "info"): {
  logger: Logger;
  text: () => string;
  lines: () => Record<string, unknown>[];
} {
  const written: string[] = [];
  const logger = createLogger(level, { write: (line: string) => written.push(line) });
  return {
    logger,
    text: () => written.join(""),
    lines: () => written.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
