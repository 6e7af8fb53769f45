import type { NewPlant, Plant } from "@plant-store/contract";
import { type CreateOutcome, outcomeAgainst, type PlantStore } from "../../src/store/plant-store.js";

/**
 * PlantStore in a Map, for suites that test what happens in front of the store (auth, validation, headers,
 * logs, docs) without paying for SQLite's threads. It passes the conformance suite the SQLite and PostgreSQL
 * stores pass (test/store-conformance.test.ts), so it cannot drift from them; storage suites use real SQLite.
 */
export class MemoryPlantStore implements PlantStore {
  readonly #plants = new Map<bigint, Plant>();
  #closed = false;

  async create(plant: NewPlant): Promise<CreateOutcome> {
    this.#refuseWhenClosed();
    const outcome = outcomeAgainst(plant, this.#plants.get(plant.id));
    if (outcome.kind === "created") this.#plants.set(plant.id, outcome.plant);
    return outcome;
  }

  async ping(): Promise<void> {
    this.#refuseWhenClosed();
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  /** What it holds, as the SQLite file's rows read: ordered by id, no tag as null. */
  rows(): { id: bigint; name: string; tag: string | null }[] {
    return [...this.#plants]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([id, plant]) => ({ id, name: plant.name, tag: plant.tag ?? null }));
  }

  #refuseWhenClosed(): void {
    // As a closed SQLite or PostgreSQL store does: a plain error, so a create answers 500 and readiness 503.
    if (this.#closed) throw new Error("the store is closed");
  }
}
