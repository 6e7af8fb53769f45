import { PlantStoreTimeoutError } from "./errors.js";

/** One call's abort signal: fires when the caller's signal does or when `timeoutMs` runs out. */
export interface Deadline {
  signal: AbortSignal;
  /** Stops the timer and the listener once the call is over. */
  release(): void;
}

// AbortSignal.any is missing from older browsers; one controller fed by both sources works everywhere.
export function startDeadline(timeoutMs: number, callerSignal: AbortSignal | undefined): Deadline {
  const controller = new AbortController();
  const onCallerAbort = () => controller.abort(callerSignal?.reason);
  if (callerSignal?.aborted) onCallerAbort();
  else callerSignal?.addEventListener("abort", onCallerAbort, { once: true });
  const timer =
    timeoutMs > 0 ? setTimeout(() => controller.abort(new PlantStoreTimeoutError(timeoutMs)), timeoutMs) : undefined;
  return {
    signal: controller.signal,
    release() {
      clearTimeout(timer);
      callerSignal?.removeEventListener("abort", onCallerAbort);
    },
  };
}
