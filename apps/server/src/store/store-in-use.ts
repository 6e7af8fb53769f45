/**
 * Another process has the store open, and the store is one process's (a SQLite file): opening it waits until that
 * process lets go. `holderPid` is that process's id when it could be read.
 */
export class StoreInUseError extends Error {
  override name = "StoreInUseError";

  constructor(
    message: string,
    readonly holderPid: number | undefined,
  ) {
    super(message);
  }
}
