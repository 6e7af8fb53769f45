import type { ChildProcess } from "node:child_process";
import type { Readable } from "node:stream";
import { tearDownWith } from "./teardown.js";

/** What a child process printed, read as it comes; the one way the server's tests capture a child's output. */
export interface ChildOutput {
  stdout: () => string;
  stderr: () => string;
  /** stdout then stderr, for failure messages. */
  output: () => string;
  /** Resolves with the first match of `pattern` in the stream, once printed; fails after `withinMs` or when the stream ends first. */
  waitFor: (stream: "stdout" | "stderr", pattern: RegExp, withinMs: number) => Promise<RegExpExecArray>;
  /** Resolves with the exit code once the process has exited and all its output has been read. */
  closed: Promise<number | null>;
}

/**
 * Captures a spawned child's stdout and stderr (only the last `keepChars` of each, so long load runs do not grow the
 * test's memory) and kills it (-9) when the test ends, or after the file when spawned outside a test, if still running.
 */
export function captureOutput(
  child: ChildProcess & { stdout: Readable; stderr: Readable },
  keepChars = Number.POSITIVE_INFINITY,
): ChildOutput {
  const text = { stdout: "", stderr: "" };
  const tail = (value: string) => (value.length > keepChars ? value.slice(-keepChars) : value);
  child.stdout.on("data", (chunk) => {
    text.stdout = tail(text.stdout + chunk);
  });
  child.stderr.on("data", (chunk) => {
    text.stderr = tail(text.stderr + chunk);
  });
  const closed = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  tearDownWith(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await closed;
  });
  const output = () => `${text.stdout}${text.stderr}`;
  const waitFor = async (stream: "stdout" | "stderr", pattern: RegExp, withinMs: number) => {
    const source = child[stream];
    const deadline = Date.now() + withinMs;
    for (;;) {
      const found = pattern.exec(text[stream]);
      if (found) return found;
      if (Date.now() > deadline || source.readableEnded)
        throw new Error(`${stream} never matched ${pattern}:\n${output()}`);
      // Woken by more output, the end of it or the deadline; each wait takes its listeners with it.
      await new Promise<void>((wake) => {
        const done = () => {
          clearTimeout(timeout);
          source.off("data", done).off("close", done);
          wake();
        };
        const timeout = setTimeout(done, Math.max(0, deadline - Date.now()) + 1);
        source.once("data", done).once("close", done);
      });
    }
  };
  return { stdout: () => text.stdout, stderr: () => text.stderr, output, waitFor, closed };
}
