import { type DiagLogger, diag, DiagLogLevel } from "@opentelemetry/api";
import type { Logger } from "../logger.js";

/**
 * Sends the SDK's own warnings and errors (an export that failed, spans dropped from a full queue) to the
 * server's log as warnings: a collector's trouble is worth a line, never a failure of the server.
 */
export function logSdkDiagnostics(logger: Logger): void {
  const log = logger.child({ component: "opentelemetry" });
  const warn = (message: string, ...args: unknown[]) => log.warn(args.length > 0 ? { detail: args } : {}, message);
  const ignore = () => undefined;
  const diagLogger: DiagLogger = { error: warn, warn, info: ignore, debug: ignore, verbose: ignore };
  diag.setLogger(diagLogger, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
}
