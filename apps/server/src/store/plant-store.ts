import type { NewPlant, Plant } from "@plant-store/contract";

/** What a create did: stored a new plant, matched an identical one, or met a different one. */
export type CreateOutcome =
  | { kind: "created"; plant: Plant }
  | { kind: "replayed"; plant: Plant }
  | { kind: "conflict"; existing: Plant };

/**
 * Where plants live. The id is the primary key and the idempotency key: creating an id again with the
 * same name and tag is a replay that writes nothing; with different data it is a conflict.
 * A create resolves only once the plant is durably committed.
 */
export interface PlantStore {
  /**
   * Rejects with StoreUnavailableError when the store cannot be reached, does not answer in time or cannot
   * write right now (locked, full, read-only).
   */
  create(plant: NewPlant): Promise<CreateOutcome>;
  /** Resolves when the store can serve a create right now; rejects when it cannot (for GET /readyz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The outcome of creating `plant` when `existing` (or nothing) is already stored under its id. */
export function outcomeAgainst(plant: NewPlant, existing: Plant | undefined): CreateOutcome {
  const requested = toPlant(plant);
  if (existing === undefined) return { kind: "created", plant: requested };
  const identical = existing.name === requested.name && existing.tag === requested.tag;
  return identical ? { kind: "replayed", plant: existing } : { kind: "conflict", existing };
}

/** A Plant from stored columns, leaving tag out when there is none. */
export function toPlant(row: { name: string; tag?: string | null | undefined }): Plant {
  return row.tag === null || row.tag === undefined ? { name: row.name } : { name: row.name, tag: row.tag };
}
