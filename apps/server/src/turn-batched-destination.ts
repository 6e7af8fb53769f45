import type { DestinationStream } from "pino";

/**
 * Hands `target` the lines logged during one event-loop turn as one write, at the end of the turn.
 *
 * Under load a turn answers a whole group commit of requests, so this is one write per turn instead of one
 * per request. pino's own asynchronous mode (sonic-boom, sync: false) was measured and not used: it measures
 * the byte length of its growing buffer string on every line, copying it each time (several KB of garbage
 * per request). Lines still pending when the process exits (process.exit, an uncaught error) are written
 * then; only a SIGKILL can lose the last turn's lines.
 */
export function turnBatched(target: DestinationStream): DestinationStream {
  let pending = "";
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending === "") return;
    const lines = pending;
    pending = "";
    target.write(lines);
  };
  process.on("exit", flush);
  return {
    write(line: string) {
      pending += line;
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
  };
}
