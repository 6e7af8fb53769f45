/** Progress of long work on stderr: one line rewritten in place on a terminal, a plain line now and then otherwise. */
export function progressLine(stream: NodeJS.WriteStream = process.stderr, { plainEveryMs = 10_000 } = {}) {
  const terminal = stream.isTTY === true;
  // Plain lines start after the first interval: short work prints only its result.
  let shownAt: number | undefined = terminal ? undefined : performance.now();
  return {
    update(text: string): void {
      const now = performance.now();
      if (shownAt !== undefined && now - shownAt < (terminal ? 100 : plainEveryMs)) return;
      stream.write(terminal ? `\r\u001b[K${text}` : `${text}\n`);
      shownAt = now;
    },
    /** Clears the terminal's line, so the result prints on a clean one. */
    done(): void {
      if (terminal && shownAt !== undefined) stream.write("\r\u001b[K");
      shownAt = undefined;
    },
  };
}

/** Bytes for people: 48.2 MB. */
export function formatBytes(bytes: number): string {
  const units = ["B", "kB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}
