import { PlantStoreTimeoutError } from "./errors.js";

/** One call's abort signal: fires when the caller's signal does or when `timeoutMs` runs out. */
export interface Deadline {
  signal: AbortSignal;
  /** Stops the timer and the listener once the call is over. */
  release(): void;
}

/** When each call's signal times out, in performance.now() milliseconds: what its requests state as time left. */
const endsAt = new WeakMap<AbortSignal, number>();

/** The milliseconds a call's `timeoutMs` has left (at least 1), or undefined for a call with no timeout. */
export function timeLeftMs(signal: AbortSignal): number | undefined {
  const end = endsAt.get(signal);
  return end === undefined ? undefined : Math.max(1, Math.ceil(end - performance.now()));
}

// AbortSignal.any is missing from older browsers; one controller fed by both sources works everywhere.
export function startDeadline(timeoutMs: number, callerSignal: AbortSignal | undefined): Deadline {
  const controller = new AbortController();
  if (timeoutMs > 0) endsAt.set(controller.signal, performance.now() + timeoutMs);
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
