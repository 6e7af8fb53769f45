/** What every floor baseline answers: the Plant a create of the benchmark's body returns. */
export const FIXED_PLANT = { name: "Monstera", tag: "tropical" } as const;

/** Tells the bench runner where the baseline listens; the runner waits for this line on stdout. */
export function announceListening(port: number): void {
  process.stdout.write(`listening on ${port}\n`);
}
