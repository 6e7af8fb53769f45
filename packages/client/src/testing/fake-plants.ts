/** A plant as the fake stores it. */
export interface FakePlant {
  id: bigint;
  name: string;
  tag?: string;
}

/** A plant as a test seeds it: an id may be a safe-integer number. */
export interface SeedPlant {
  id: bigint | number;
  name: string;
  tag?: string;
}

function toFakePlant(plant: { id: bigint | number; name: string; tag?: string | undefined }): FakePlant {
  return { id: BigInt(plant.id), name: plant.name, ...(plant.tag !== undefined && { tag: plant.tag }) };
}

/** The fake's plants: the create rule the server's store keeps (idempotent by id, a conflict on other data). */
export class FakePlants {
  readonly byId = new Map<bigint, FakePlant>();
  readonly #seed: readonly FakePlant[];

  constructor(seed: Iterable<SeedPlant> = []) {
    this.#seed = [...seed].map(toFakePlant);
    this.reset();
  }

  /** Back to the seeded plants only. */
  reset(): void {
    this.byId.clear();
    for (const plant of this.#seed) this.byId.set(plant.id, { ...plant });
  }

  /** Stores the plant, or finds it stored with the same data; "conflict" when its id holds other data. */
  create(input: { id: bigint | number; name: string; tag?: string | undefined }): FakePlant | "conflict" {
    const plant = toFakePlant(input);
    const stored = this.byId.get(plant.id);
    if (!stored) {
      this.byId.set(plant.id, plant);
      return plant;
    }
    return stored.name === plant.name && stored.tag === plant.tag ? stored : "conflict";
  }
}
